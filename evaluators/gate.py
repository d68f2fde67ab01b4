"""Quality gates for CI: thresholds on a run's means or on the lower bounds of their 95 %
intervals, a JUnit XML report and a Markdown summary (appended to ``$GITHUB_STEP_SUMMARY``).

A threshold ``adherence=0.8`` means "fail when adherence is under 0.8". With ``gate_on="lower"``
the lower bound of the interval must clear the threshold, so a small or noisy run cannot pass by
luck; a metric without an interval (fewer than 2 scored cases) then fails with that reason. For a
metric whose lower values are better (its declaration's direction: ``uncited_claims``) the threshold is
a ceiling: ``uncited_claims=0.2`` fails when the mean (with ``gate_on="lower"``: the interval's upper
bound, the cautious side) is above 0.2.
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

GATE_ON = ("mean", "lower")


@dataclass(frozen=True)
class Check:
    metric: str
    threshold: float
    gate_on: str
    mean: float | None
    low: float | None
    high: float | None
    n: int
    passed: bool
    reason: str = ""
    #: lower values are better: the threshold is a ceiling
    ceiling: bool = False

    @property
    def gated_value(self) -> float | None:
        if self.gate_on == "lower":
            return self.high if self.ceiling else self.low
        return self.mean

    def describe(self) -> str:
        ci = f" [{self.low:.3f}, {self.high:.3f}]" if self.low is not None and self.high is not None else ""
        mean = f"{self.mean:.3f}{ci}" if self.mean is not None else "n/a"
        status = "ok" if self.passed else "FAILED"
        return f"{self.metric}: {mean} (n={self.n}), needs {self._needs()} — {status}" + (
            f": {self.reason}" if self.reason and not self.passed else "")

    def _needs(self) -> str:
        if self.ceiling:
            return (f"upper bound ≤ {self.threshold:g}" if self.gate_on == "lower"
                    else f"mean ≤ {self.threshold:g}")
        return (f"lower bound ≥ {self.threshold:g}" if self.gate_on == "lower"
                else f"mean ≥ {self.threshold:g}")


def _lower_is_better(metric: str) -> bool:
    """The metric's declaration says lower values are better (unknown names: higher)."""
    from .families import METRICS

    return metric in METRICS.names() and METRICS.get(metric).direction == "lower"


@dataclass(frozen=True)
class GateResult:
    checks: tuple[Check, ...]
    gate_on: str
    method: str = ""
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]

    def messages(self) -> list[str]:
        """One line per failed metric, naming it."""
        return [f"FAIL {c.metric}: {c.reason}" for c in self.failures]


def parse_thresholds(specs: Iterable[str] | Mapping[str, Any] | str | None) -> dict[str, float]:
    """``["adherence=0.8", "context_relevance=0.5"]`` (or one comma-separated string, or a
    mapping) -> {metric: threshold}. Raises ValueError naming a malformed entry (no ``=``, an empty
    name or value, a value that is not a number)."""
    if specs is None:
        return {}
    if isinstance(specs, Mapping):
        items = [(str(k), v) for k, v in specs.items()]
    else:
        parts = [specs] if isinstance(specs, str) else list(specs)
        items = []
        for part in parts:
            for spec in str(part).split(","):
                spec = spec.strip()
                if not spec:
                    continue
                name, sep, val = spec.partition("=")
                if not sep or not name.strip() or not val.strip():
                    raise ValueError(f"threshold {spec!r}: expected METRIC=VALUE, e.g. adherence=0.8")
                items.append((name.strip(), val.strip()))
    out: dict[str, float] = {}
    for name, val in items:
        try:
            v = float(val)
        except (TypeError, ValueError):
            raise ValueError(f"threshold for {name!r}: {val!r} is not a number") from None
        if math.isnan(v):
            raise ValueError(f"threshold for {name!r}: {val!r} is not a number")
        out[name] = v
    return out


def _intervals_of(results: Any, group_column: str | None = None) -> tuple[dict[str, Any], dict[str, Any], str]:
    """(intervals, flat means, method) of a RunResult or an export dict."""
    from .types import RunResult

    if isinstance(results, RunResult):
        from .agreement import run_intervals

        iv = run_intervals(results, group_column)
        means = results.means()
        return iv, means, results.method
    if not isinstance(results, Mapping):
        raise TypeError(f"expected a RunResult or the evaluation JSON dict, got {type(results).__name__}")
    iv = dict(results.get("intervals") or {})
    means = {k: v for k, v in results.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    return iv, means, str(results.get("method", ""))


def evaluate_gate(results: Any, thresholds: Mapping[str, float], gate_on: str = "mean", *,
                  group_column: str | None = None) -> GateResult:
    """Check ``thresholds`` against a RunResult or the evaluation JSON dict (``export.to_json_dict``
    with its ``intervals``)."""
    if gate_on not in GATE_ON:
        raise ValueError(f"gate_on must be one of {', '.join(GATE_ON)}, got {gate_on!r}")
    iv, means, method = _intervals_of(results, group_column)
    known = sorted(set(iv) | {k for k in means if k not in ("num_samples", "num_scored", "num_errors")})
    checks = []
    for metric, thr in thresholds.items():
        d = iv.get(metric) or {}
        mean = d.get("mean", means.get(metric))
        low, high, n = d.get("low"), d.get("high"), int(d.get("n") or 0)
        if metric not in iv and metric not in means:
            checks.append(Check(metric, thr, gate_on, None, None, None, 0, False,
                                f"metric not in the results (available: {', '.join(known) or 'none'})"))
            continue
        if mean is None:
            checks.append(Check(metric, thr, gate_on, None, None, None, n, False,
                                "no scored case has this metric"))
            continue
        ci = f" [{low:.3f}, {high:.3f}]" if low is not None and high is not None else ""
        if _lower_is_better(metric):
            bound = high if gate_on == "lower" else mean
            if bound is None:
                checks.append(Check(metric, thr, gate_on, mean, low, high, n, False,
                                    f"mean {mean:.3f} has no 95% interval ({d.get('note') or 'no interval'}); "
                                    "cannot gate on its upper bound", ceiling=True))
                continue
            ok = bound <= thr
            what = f"upper bound {bound:.3f} of the 95% interval (mean {mean:.3f}{ci}, n={n})" if gate_on == "lower" \
                else f"mean {mean:.3f}{ci} (n={n})"
            checks.append(Check(metric, thr, gate_on, mean, low, high, n, ok,
                                "" if ok else f"{what} is above {thr:g} (lower is better)", ceiling=True))
            continue
        if gate_on == "lower":
            if low is None:
                why = d.get("note") or "no interval"
                checks.append(Check(metric, thr, gate_on, mean, low, high, n, False,
                                    f"mean {mean:.3f} has no 95% interval ({why}); cannot gate on "
                                    f"its lower bound"))
                continue
            ok = low >= thr
            reason = "" if ok else (f"lower bound {low:.3f} of the 95% interval (mean {mean:.3f}{ci}, "
                                    f"n={n}) is below {thr:g}")
        else:
            ok = mean >= thr
            reason = "" if ok else f"mean {mean:.3f}{ci} (n={n}) is below {thr:g}"
        checks.append(Check(metric, thr, gate_on, mean, low, high, n, ok, reason))
    summary = {}
    if isinstance(results, Mapping):
        summary = {k: results.get(k) for k in ("num_samples", "num_scored", "num_errors")}
        summary["errors"] = list(results.get("errors") or [])
    else:
        summary = {"num_samples": len(results.results), "num_scored": len(results.scored),
                   "num_errors": len(results.errors),
                   "errors": [{"id": i, "error": e} for i, e in results.errors]}
    return GateResult(tuple(checks), gate_on, method, summary)


# --------------------------------------------------------------------------- reports


def junit_xml(gate: GateResult, suite_name: str = "rag-evaluation") -> str:
    """A JUnit XML report: one test case per threshold (failure element when it failed)."""
    root = ET.Element("testsuites", name=suite_name, tests=str(max(1, len(gate.checks))),
                      failures=str(len(gate.failures)), errors="0")
    suite = ET.SubElement(root, "testsuite", name=f"{suite_name} ({gate.method or 'evaluation'})",
                          tests=str(max(1, len(gate.checks))), failures=str(len(gate.failures)),
                          errors="0", skipped="0", time="0")
    props = ET.SubElement(suite, "properties")
    for k, v in (("method", gate.method), ("gate_on", gate.gate_on),
                 *((k, gate.summary.get(k)) for k in ("num_samples", "num_scored", "num_errors"))):
        ET.SubElement(props, "property", name=str(k), value="" if v is None else str(v))
    if not gate.checks:
        ET.SubElement(suite, "testcase", classname="rag_eval.gate", name="evaluation completed", time="0")
    for c in gate.checks:
        tc = ET.SubElement(suite, "testcase", classname="rag_eval.gate",
                           name=f"{c.metric} >= {c.threshold:g} ({c.gate_on})", time="0")
        if not c.passed:
            fail = ET.SubElement(tc, "failure", message=f"{c.metric}: {c.reason}", type="ThresholdNotMet")
            fail.text = c.describe()
        else:
            out = ET.SubElement(tc, "system-out")
            out.text = c.describe()
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True)


def write_junit(gate: GateResult, path: str | os.PathLike[str], suite_name: str = "rag-evaluation") -> Path:
    p = Path(path)
    if p.parent and not p.parent.exists():
        p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(junit_xml(gate, suite_name) + "\n", encoding="utf-8")
    return p


def _fmt(x: Any, digits: int = 3) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def markdown_summary(gate: GateResult, results: Any = None, *, title: str = "RAG evaluation",
                     max_errors: int = 5) -> str:
    """A Markdown report: verdict, a table of every metric with its 95 % interval and threshold,
    and the first errors."""
    iv, _means, _ = _intervals_of(results) if results is not None else ({}, {}, "")
    checks = {c.metric: c for c in gate.checks}
    lines = [f"## {title}" + (f" — `{gate.method}`" if gate.method else ""), ""]
    if gate.checks:
        verdict = "✅ **Gate passed**" if gate.passed else f"❌ **Gate failed** ({len(gate.failures)} metric(s))"
        basis = "lower bound of the 95% interval" if gate.gate_on == "lower" else "mean"
        lines += [f"{verdict} — thresholds checked on the {basis}.", ""]
    s = gate.summary
    if s.get("num_samples") is not None:
        lines += [f"Scored {s.get('num_scored')} of {s.get('num_samples')} cases"
                  + (f"; {s.get('num_errors')} could not be scored." if s.get("num_errors") else "."), ""]
    names = list(iv) + [m for m in checks if m not in iv]
    if names:
        lines += ["| metric | mean | 95% interval | n | threshold | status |",
                  "|---|---:|---|---:|---|---|"]
        for m in names:
            d = iv.get(m) or {}
            c = checks.get(m)
            mean = d.get("mean", c.mean if c else None)
            low, high = d.get("low", c.low if c else None), d.get("high", c.high if c else None)
            ci = f"[{_fmt(low)}, {_fmt(high)}]" if low is not None and high is not None else "–"
            thr = (f"≥ {c.threshold:g}" + (" (lower bound)" if c.gate_on == "lower" else "")) if c else ""
            status = ("✅" if c.passed else "❌ " + c.reason.replace("|", "/")) if c else ""
            lines.append(f"| {m} | {_fmt(mean)} | {ci} | {d.get('n', c.n if c else '')} | {thr} | {status} |")
        lines.append("")
    errs = s.get("errors") or []
    if errs:
        lines.append(f"<details><summary>{len(errs)} case(s) not scored</summary>\n")
        for e in errs[:max_errors]:
            lines.append(f"- `{e.get('id')}`: {str(e.get('error')).replace(chr(10), ' ')}")
        if len(errs) > max_errors:
            lines.append(f"- … and {len(errs) - max_errors} more")
        lines += ["", "</details>", ""]
    return "\n".join(lines)


def write_markdown(text: str, path: str | os.PathLike[str] | None = None, *,
                   step_summary: bool = True) -> list[Path]:
    """Write the summary to ``path`` (overwrite) and append it to ``$GITHUB_STEP_SUMMARY`` when
    that variable is set (and ``step_summary``). Returns the files written."""
    written = []
    if path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text + "\n", encoding="utf-8")
        written.append(p)
    env = os.environ.get("GITHUB_STEP_SUMMARY")
    if step_summary and env:
        p = Path(env)
        if not written or p.resolve() != written[0].resolve():
            with p.open("a", encoding="utf-8") as fh:
                fh.write(text + "\n")
            written.append(p)
    return written
