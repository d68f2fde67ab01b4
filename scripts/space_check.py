"""Replay the Docker image's steps on a machine without Docker (``bash scripts/space_check.sh [VENV_DIR]``).

1. a fresh venv at VENV_DIR (kept afterwards) from the Dockerfile's ``RUN pip install`` lines, with
   pip's local configuration off (``PIP_CONFIG_FILE=/dev/null``, no ``PIP_FIND_LINKS``: the public
   index, as a user or a Space gets it); its size, and that no torch / nvidia-* / cuda-* / triton
   package is in it;
2. a read-only copy of the project tree (the image's ``/app``) and a fresh HOME only the app's user
   can write (uid 1000 when run as root, as a Space runs the container);
3. the build steps the Dockerfile runs as that user (``encoder build``, ``ui.serving.warm``), then the CLI
   on the 16 sample cases from that venv;
4. the Dockerfile's CMD as that user with its ENV, until ``/_stcore/health`` answers (timed);
5. a headless-Chromium run of the 16 sample cases (``scripts/space_browser.py``: time from the click
   on Run to the finished run);
7. a restart mid-run with a persistent folder (``/data`` on a Space; ``SPACE_DATA_DIR`` here): a
   visitor starts a 3,000-case run (``scripts/space_restart.py``), the app is killed and started again on the
   same folder; the history, the finished cases and the Resume offer must be there, and the resumed
   run must end with every case and report its whole time.

Prints the venv size and every timing; exits non-zero when any step fails. ``--json PATH`` also
writes the figures (``bench/results/space_check.json``). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "Dockerfile"
FORBIDDEN = re.compile(r"^(torch|triton|nvidia-.*|cuda-.*|sentence-transformers|transformers)$", re.I)


# ---------------------------------------------------------------- reading the Dockerfile
def dockerfile_steps(path: Path = DOCKERFILE) -> dict[str, Any]:
    """The parts of the Dockerfile this check replays: the base image, ENV (in order, with the
    USER they were set under), the pip install lines (as root), the RUN lines after ``USER``,
    EXPOSE, the HEALTHCHECK command and CMD."""
    lines: list[str] = []
    buf = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        buf = f"{buf} {s[:-1].strip()}" if s.endswith("\\") else f"{buf} {s}"
        if not s.endswith("\\"):
            lines.append(buf.strip())
            buf = ""
    out: dict[str, Any] = {"env": {}, "pip": [], "user_runs": [], "root_runs": [], "expose": [], "user": None}
    for ln in lines:
        kw, _, rest = ln.partition(" ")
        kw = kw.upper()
        if kw == "FROM":
            out["from"] = rest.strip()
        elif kw == "ENV":
            for tok in shlex.split(rest):
                k, _, v = tok.partition("=")
                out["env"][k] = v
        elif kw == "USER":
            out["user"] = rest.strip()
        elif kw == "RUN":
            if out["user"] is None and re.match(r"pip install\b", rest.strip()):
                out["pip"].append(shlex.split(rest)[2:])
            elif out["user"] is None:
                out["root_runs"].append(rest.strip())
            else:
                out["user_runs"].append(rest.strip())
        elif kw == "EXPOSE":
            out["expose"] += [int(p) for p in rest.split()]
        elif kw == "HEALTHCHECK":
            out["healthcheck"] = rest.split(" CMD ", 1)[1].strip() if " CMD " in rest else rest
        elif kw == "CMD":
            out["cmd"] = json.loads(rest)
    return out


# ---------------------------------------------------------------- steps
def step(name: str, results: dict[str, Any]) -> Any:
    class _Step:
        def __enter__(self) -> None:
            self.t = time.perf_counter()
            print(f"== {name}", flush=True)

        def __exit__(self, kind: Any, exc: Any, tb: Any) -> bool:
            took = round(time.perf_counter() - self.t, 1)
            results.setdefault("seconds", {})[name] = took
            print(f"   {'failed' if exc else 'ok'} in {took} s" + (f": {exc}" if exc else ""), flush=True)
            if exc is not None:
                results.setdefault("failed", []).append(f"{name}: {exc}")
            return True  # keep going: later steps report what they can
    return _Step()


def public_pip_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1")
    if os.environ.get("PIP_CERT"):
        env["PIP_CERT"] = os.environ["PIP_CERT"]
    return env


def build_venv(venv: Path, steps: dict[str, Any], python: str) -> None:
    if venv.exists():
        shutil.rmtree(venv)
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    for args in steps["pip"]:
        # the Dockerfile's line, with its requirement files read from the project tree
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *args], cwd=ROOT,
                       env=public_pip_env(), check=True)


def venv_facts(venv: Path) -> dict[str, Any]:
    listed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format=json"],
                            capture_output=True, text=True, check=True, env=public_pip_env())
    names = sorted(p["name"] for p in json.loads(listed.stdout))
    size = int(subprocess.run(["du", "-sm", str(venv)], capture_output=True, text=True, check=True).stdout.split()[0])
    pyc = sum(f.stat().st_size for f in venv.rglob("*.pyc")) / 1e6
    return {"size_mb": size, "pyc_mb": round(pyc, 1), "packages": len(names),
            "forbidden": [n for n in names if FORBIDDEN.match(n)]}


def default_python() -> str:
    """Python 3.11 (the image's) outside any private home: a venv only links to its interpreter, and
    the app's user must be able to run it (pyenv's under /root is not readable by uid 1000)."""
    for cand in ("/usr/bin/python3.11", "/usr/local/bin/python3.11", shutil.which("python3.11"), sys.executable):
        if cand and Path(cand).exists() and not str(Path(cand).resolve()).startswith(("/root/", "/home/")):
            return cand
    return shutil.which("python3.11") or sys.executable


def app_user() -> tuple[int, int, str]:
    """uid / gid the app runs as: 1000 (a Space's) when this runs as root, else the current user."""
    if os.geteuid() == 0:
        try:
            pw = pwd.getpwuid(1000)
            return 1000, pw.pw_gid, pw.pw_name
        except KeyError:
            subprocess.run(["useradd", "--uid", "1000", "--no-create-home", "spacecheck"], check=True)
            return 1000, pwd.getpwuid(1000).pw_gid, "spacecheck"
    return os.geteuid(), os.getegid(), pwd.getpwuid(os.geteuid()).pw_name


def read_only_tree(dest: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split("\n")
    for rel in filter(None, files):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    subprocess.run(["chmod", "-R", "a+rX,a-w", str(dest)], check=True)
    return dest


def as_user(cmd: list[str], uid: int, gid: int) -> list[str]:
    if os.geteuid() == 0 and uid != 0:
        return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", *cmd]
    return cmd


def user_env(steps: dict[str, Any], venv: Path, home: Path, extra: dict[str, str]) -> dict[str, str]:
    env = {"PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
    for k, v in steps["env"].items():
        env[k] = v.replace("/home/user", str(home)).replace("$PATH", env["PATH"])
    env.update(extra)
    return env


def wait_health(url: str, proc: subprocess.Popen, timeout: float = 60) -> float:
    t = time.perf_counter()
    while time.perf_counter() - t < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"the app exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return time.perf_counter() - t
        except OSError:
            pass
        time.sleep(0.1)
    raise TimeoutError(f"{url} did not answer within {timeout:.0f} s")


def browser_python(explicit: str | None) -> str:
    for cand in filter(None, (explicit, str(ROOT / ".venv" / "bin" / "python"), sys.executable)):
        has = Path(cand).exists() and subprocess.run([cand, "-c", "import playwright"], capture_output=True)
        if has and has.returncode == 0:
            return cand
    raise RuntimeError("the browser run needs Python Playwright (bash scripts/dev.sh test installs it) and "
                       "Debian's chromium (apt-get install -y chromium)")


def restart_check(steps: dict[str, Any], app_dir: Path, venv: Path, home: Path, uid: int, gid: int, port: int,
                  work: Path, browser: str | None) -> dict[str, Any]:
    """Step 7: start the app on a persistent folder, start a run, kill the app mid-run (as a Space
    restart does), start it again on the same folder, and check what a visitor finds."""
    data = work / "data"
    data.mkdir()
    os.chown(data, uid, gid) if os.geteuid() == 0 else None
    env = user_env(steps, venv, home, {"STREAMLIT_SERVER_PORT": str(port), "STREAMLIT_SERVER_ADDRESS": "127.0.0.1",
                                       "SPACE_DATA_DIR": str(data)})
    env.pop("RAG_EVAL_STORE", None)
    store = data / "rag-eval" / "runs.sqlite3"
    py = browser_python(browser)
    token, n = "restartcheck-visitor-000001", 3000
    url = f"http://127.0.0.1:{port}"

    def launch(name: str) -> subprocess.Popen:
        with open(work / name, "w") as fh:
            proc = subprocess.Popen(as_user(steps["cmd"], uid, gid), cwd=app_dir, env=env, stdout=fh,
                                    stderr=subprocess.STDOUT)
        wait_health(f"{url}/_stcore/health", proc, timeout=120)
        return proc

    def drive(*args: str) -> dict[str, Any]:
        res = subprocess.run([py, str(ROOT / "scripts" / "space_restart.py"), *args], capture_output=True,
                             text=True, timeout=900)
        if res.returncode:
            raise RuntimeError(res.stderr[-2000:] or res.stdout[-2000:])
        return json.loads(res.stdout.strip().splitlines()[-1])

    proc = launch("app_before.log")
    try:
        first = drive("start", url, str(store), str(n), token)
    finally:
        proc.kill()  # no goodbye: as a container stopped or crashed mid-run
        proc.wait(timeout=30)
    t = time.perf_counter()
    proc = launch("app_after.log")
    restart_s = time.perf_counter() - t
    try:
        second = drive("after", url, str(store), str(n), token, str(first["done_before_restart"]))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return {**first, **second, "restart_to_health_s": round(restart_s, 2)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("venv", nargs="?", default=str(Path(tempfile.gettempdir()) / "space-venv"),
                    help="where the fresh venv is made (kept afterwards; default: %(default)s)")
    ap.add_argument("--python", default=default_python(),
                    help="the interpreter the venv is made from: the image's Python version, in a place the "
                         "app's user can read (default: %(default)s)")
    ap.add_argument("--reuse-venv", action="store_true", help="skip step 1 when VENV exists (iterating on the rest)")
    ap.add_argument("--browser-python", default=None, help="a Python with Playwright (default: .venv, then this one)")
    ap.add_argument("--port", type=int, default=None, help="default: the Dockerfile's EXPOSE")
    ap.add_argument("--json", default=None, help="also write the figures here")
    args = ap.parse_args(argv)

    steps = dockerfile_steps()
    venv = Path(args.venv).resolve()
    port = args.port or steps["expose"][0]
    results: dict[str, Any] = {"dockerfile_from": steps.get("from"), "venv": str(venv),
                               "python": subprocess.run([args.python, "--version"], capture_output=True,
                                                        text=True).stdout.strip()}
    if not (args.reuse_venv and (venv / "bin" / "python").exists()):
        with step("1 fresh venv from the Dockerfile's pip lines (public index)", results):
            build_venv(venv, steps, args.python)
    with step("1b venv contents", results):
        facts = venv_facts(venv)
        results["venv_facts"] = facts
        print(f"   venv {facts['size_mb']} MB ({facts['pyc_mb']} MB of .pyc), {facts['packages']} packages, "
              f"torch / nvidia / cuda / triton: {facts['forbidden'] or 'none'}")
        if facts["forbidden"]:
            raise RuntimeError(f"forbidden packages in the runtime venv: {facts['forbidden']}")
    work = Path(tempfile.mkdtemp(prefix="space-check-"))
    os.chmod(work, 0o755)
    uid, gid, user = app_user()
    home = work / "home"
    home.mkdir()
    os.chown(home, uid, gid) if os.geteuid() == 0 else None
    os.chmod(home, 0o700)
    with step("2 read-only copy of the tree", results):
        app_dir = read_only_tree(work / "app")
    env = user_env(steps, venv, home, {"STREAMLIT_SERVER_PORT": str(port), "STREAMLIT_SERVER_ADDRESS": "127.0.0.1"})
    results["user"] = f"{user} (uid {uid})"
    for cmd in steps["user_runs"]:
        with step(f"3 build step as {user}: {cmd}", results):
            res = subprocess.run(as_user(["bash", "-c", cmd], uid, gid), cwd=app_dir, env=env,
                                 capture_output=True, text=True, timeout=900)
            if res.returncode:
                raise RuntimeError(res.stderr[-2000:])
            print("   " + (res.stdout.strip().splitlines() or [""])[-1])
    with step(f"3b the CLI as {user}: trace on the 16 sample cases", results):
        out = home / "cli.json"
        res = subprocess.run(as_user(["python", "-m", "evaluators", "evaluate", "data/sample_rag.jsonl", "--out",
                                      str(out), "--no-progress"], uid, gid), cwd=app_dir, env=env,
                             capture_output=True, text=True, timeout=600)
        if res.returncode:
            raise RuntimeError(res.stderr[-2000:])
        cli = json.loads(out.read_text(encoding="utf-8"))
        results["cli"] = {"scored": cli["num_scored"], "cases": cli["num_samples"],
                          "encoder": (cli.get("encoder") or {}).get("backend")}
        print(f"   {cli['num_scored']} of {cli['num_samples']} scored with {results['cli']['encoder']}")
        if cli["num_scored"] != cli["num_samples"]:
            raise RuntimeError(f"only {cli['num_scored']} of {cli['num_samples']} cases scored")
    log = work / "app.log"
    proc = None
    with step("4 start (the Dockerfile's CMD) until /_stcore/health answers", results):
        with open(log, "w") as fh:
            proc = subprocess.Popen(as_user(steps["cmd"], uid, gid), cwd=app_dir, env=env, stdout=fh,
                                    stderr=subprocess.STDOUT)
        results["start_to_health_s"] = round(wait_health(f"http://127.0.0.1:{port}/_stcore/health", proc), 2)
        print(f"   health OK {results['start_to_health_s']} s after start")
    try:
        with step("5 headless Chromium: the 16 sample cases", results):
            if proc is None or proc.poll() is not None:
                raise RuntimeError("the app is not running")
            res = subprocess.run([browser_python(args.browser_python), str(ROOT / "scripts" / "space_browser.py"),
                                  f"http://127.0.0.1:{port}", str(work / "shots")], capture_output=True,
                                 text=True, timeout=600)
            print("   " + "\n   ".join(res.stdout.strip().splitlines()[-3:]))
            if res.returncode:
                raise RuntimeError(res.stderr[-2000:])
            results["browser"] = json.loads(res.stdout.strip().splitlines()[-1])
        with step("6 the app's user could write nothing but its HOME and the temp dir", results):
            leaked = [str(p) for p in app_dir.rglob("*") if p.stat().st_mtime > time.time() - 3600
                      and p.stat().st_uid == uid]
            if leaked:
                raise RuntimeError(f"files written into the tree: {leaked[:5]}")
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            proc.wait(timeout=20)
    with step("7 restart mid-run: history, finished cases and Resume survive", results):
        results["restart"] = restart_check(steps, app_dir, venv, home, uid, gid, port, work, args.browser_python)
        r = results["restart"]
        print(f"   {r['done_before_restart']} of {r['cases']} cases before the restart; after it: "
              f"{r['status_after_restart']}, {r['done_after_restart']} kept, Resume offered: {r['resume_offered']}; "
              f"resumed: {r['num_done']} of {r['num_cases']} in {r['wall_s']:.1f} s (whole time); {r['notice']}")
        if not (r["kept_every_finished_case"] and r["resume_offered"] and r["whole_count"] and r["whole_time"]):
            raise RuntimeError(f"the restart lost something: {r}")
    results["app_log_tail"] = log.read_text(errors="replace").splitlines()[-15:] if log.exists() else []
    failed = results.get("failed", [])
    print(json.dumps({k: v for k, v in results.items() if k != "app_log_tail"}, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    if failed:
        print("FAILED: " + "; ".join(failed), file=sys.stderr)
        print("app log:\n" + "\n".join(results["app_log_tail"]), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
