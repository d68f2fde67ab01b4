// The reference BM25 for bench/bm25_check.py: Lucene's own EnglishAnalyzer and BM25Similarity (the
// analysis and scoring Anserini/Pyserini and Elasticsearch's "english" analyzer use). Run with the
// Debian package liblucene8-java (no build step: Java 11+ runs a single source file):
//
//   java -cp "/usr/share/java/lucene-core-8.7.0.jar:/usr/share/java/lucene-analyzers-common-8.7.0.jar" \
//        bench/lucene/LuceneBM25.java analyze IN.tsv OUT.tsv
//   java -cp ... bench/lucene/LuceneBM25.java score DOCS.tsv QUERIES.tsv OUT.tsv K1 B
//
// IN / DOCS / QUERIES: one "id<TAB>text" a line (UTF-8). analyze writes "id<TAB>token token ...";
// score writes "query id<TAB>doc id<TAB>score" for every document that matches a query term (the query:
// its analysed tokens, each a SHOULD clause, as Elasticsearch's match query and Anserini's bag of words).
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;

public class LuceneBM25 {
    static List<String> analyze(Analyzer analyzer, String text) throws IOException {
        List<String> out = new ArrayList<>();
        try (TokenStream ts = analyzer.tokenStream("text", text)) {
            CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
            ts.reset();
            while (ts.incrementToken()) {
                out.add(term.toString());
            }
            ts.end();
        }
        return out;
    }

    static List<String[]> read(String path) throws IOException {
        List<String[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(path), StandardCharsets.UTF_8)) {
            if (!line.isEmpty()) {
                rows.add(line.split("\t", 2));
            }
        }
        return rows;
    }

    public static void main(String[] args) throws Exception {
        Analyzer analyzer = new EnglishAnalyzer();
        if (args[0].equals("analyze")) {
            try (BufferedWriter w = Files.newBufferedWriter(Paths.get(args[2]), StandardCharsets.UTF_8)) {
                for (String[] row : read(args[1])) {
                    w.write(row[0] + "\t" + String.join(" ", analyze(analyzer, row[1])) + "\n");
                }
            }
            return;
        }
        BM25Similarity sim = new BM25Similarity(Float.parseFloat(args[4]), Float.parseFloat(args[5]));
        BooleanQuery.setMaxClauseCount(1 << 20);
        ByteBuffersDirectory dir = new ByteBuffersDirectory();
        try (IndexWriter iw = new IndexWriter(dir, new IndexWriterConfig(analyzer).setSimilarity(sim))) {
            for (String[] row : read(args[1])) {
                Document doc = new Document();
                doc.add(new StringField("id", row[0], Field.Store.YES));
                doc.add(new TextField("text", row[1], Field.Store.NO));
                iw.addDocument(doc);
            }
        }
        try (DirectoryReader reader = DirectoryReader.open(dir);
             BufferedWriter w = Files.newBufferedWriter(Paths.get(args[3]), StandardCharsets.UTF_8)) {
            IndexSearcher searcher = new IndexSearcher(reader);
            searcher.setSimilarity(sim);
            for (String[] row : read(args[2])) {
                BooleanQuery.Builder q = new BooleanQuery.Builder();
                for (String token : analyze(analyzer, row.length > 1 ? row[1] : "")) {
                    q.add(new TermQuery(new Term("text", token)), BooleanClause.Occur.SHOULD);
                }
                for (ScoreDoc hit : searcher.search(q.build(), Math.max(1, reader.numDocs())).scoreDocs) {
                    w.write(row[0] + "\t" + searcher.doc(hit.doc).get("id") + "\t" + hit.score + "\n");
                }
            }
        }
    }
}
