"""The Upload page's own code (``pages/1_upload.py``): a file or a sample set, its preview and
column mapping; for a trace export, what the traces gave and how they are read.

    from ui.upload import traces_upload
    traces_upload.show(data)          # a trace file: cases, skipped traces, filters, mapping by hand

Modules: ``traces_upload`` (Upload for a trace file). Shared with other pages, at the top of
``ui/``: ``data`` (uploads and samples read into cases: ``load_bytes``, ``build``, the mapping),
``state`` (the loaded dataset of the session).
"""
