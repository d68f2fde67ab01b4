"""Goal accuracy: did the agent achieve what the user asked? Judged by an LLM, one call per case,
through ``evaluators.llm`` (cached like every LLM call); offline it is not available, and says so.

Contract: :func:`judge` takes a run's finished cases and its options and gives, per case, the
``goal_accuracy`` :class:`~evaluators.types.MetricValue` (family ``toolcalls``) or None (a case of
no agent: no tool calls, no reference tool calls), each case's LLM usage, and the run's warnings.

* **When**: every agent case of a run that has an LLM (``EvalOptions.llm``: method ``gpt_labeling``
  / ``hybrid``, or an LLM given to a ``trace`` run) and ``EvalOptions.goal_accuracy``. Without an
  LLM the value is skipped with :data:`OFFLINE` (the CLI, the JSON's ``metric_details`` and the
  dashboard say it): the heuristic does not guess whether a goal was met. A dry run, an LLM that
  cannot be called, a case without an answer, a call that failed: skipped with the reason.
* **The prompt** (:func:`build_messages`, versioned by :data:`PROMPT_VERSION`) is sentence-keyed like
  the labeling prompt (``evaluators.labelers.llm``): the user's request (and the conversation before
  it), the reference answer when the case has one, the agent's steps keyed ``s1``, ``s2`` … (tool,
  arguments, ok / failed, the result cut short), and the final answer's sentences keyed ``a``, ``b`` …
  (the split the case was labeled with). The model lists the request's goals and, for each, cites
  the answer sentences that deliver it and the steps that did the work, then says whether it was
  achieved (explanation before verdict).
* **Parsing** (:func:`to_judgment`): lenient keys (``"S1."`` -> ``s1``, a comma-separated string ->
  a list); keys that do not exist are dropped and noted; a goal "achieved" that cites only failed
  steps and no answer sentence is kept as the model said, with a note; a reply without goals is
  re-asked once with the error (``LLMClient.structured``), then the case's value is skipped.
* **Value**: the share of the request's goals achieved (1.0 = all). ragas' ``AgentGoalAccuracy`` is
  the 0 / 1 form of it (1 exactly when every goal is achieved); details keep each goal, its verdict,
  explanation and cited keys, the model and the prompt version.
"""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any, Sequence, cast

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..labelers.llm import Explanation, KeyList, normalize_key
from ..sentencize import sentences_of
from ..types import CaseResult, MetricValue, TestCase, ToolCall, Usage
from .names import FAMILY, GOAL

if TYPE_CHECKING:  # pragma: no cover
    from ..options import EvalOptions

PROMPT_VERSION = "goal-v1"
#: Why goal accuracy has no value in a run without an LLM.
OFFLINE = ("not available offline: goal accuracy is judged by an LLM, one call per case (method gpt_labeling "
           "or hybrid, or an LLM given to the run); the trace method does not guess it")
#: Characters of a step's arguments and result shown to the judge.
ARGS_CHARS, RESULT_CHARS = 300, 600

SYSTEM_PROMPT = (
    "You are a meticulous judge of AI agents. You read a user's request, the tool calls the agent made and "
    "its final answer, refer to steps and sentences only by the keys you are given, and answer with a "
    "single JSON object and nothing else."
)

INSTRUCTIONS = """\
Every step above has a key such as "s1" and every sentence of the final answer a key such as "a". \
Judge whether the agent achieved what the user asked.

1. Goals. List the distinct things the user asked the agent to do or to find out (usually one to \
three; a question is one goal unless it asks several things).
2. For each goal give "goal" (a short phrase); an "explanation" of what the agent did about it and \
whether the final answer delivers it; "answer_sentence_keys", the keys of the answer sentences that \
deliver it (empty when none does); "step_keys", the keys of the steps that did the work (empty when \
none did); and then "achieved": true only if the end state satisfies the goal. A goal is not achieved \
when the answer only claims it while the step that should have done it failed or was never made, \
when the answer declines or defers, or when it answers something else.
3. Explain the whole in "overall_explanation", then set "goal_achieved": true only if every goal is \
achieved.

Use only keys shown above. Reply with only this JSON object:
{
  "goals": [
    {"goal": "...", "explanation": "...", "answer_sentence_keys": ["a"], "step_keys": ["s1"], \
"achieved": true}
  ],
  "overall_explanation": "...",
  "goal_achieved": true
}"""


class GoalVerdict(BaseModel):
    model_config = ConfigDict(extra="ignore")

    goal: Explanation = ""
    explanation: Explanation = ""
    answer_sentence_keys: KeyList = Field(default_factory=list)
    step_keys: KeyList = Field(default_factory=list)
    achieved: bool

    @field_validator("achieved", mode="before")
    @classmethod
    def _word(cls, v: Any) -> Any:
        if isinstance(v, str):
            t = v.strip().lower()
            if t in ("yes", "achieved", "met", "fully", "full", "true"):
                return True
            if t in ("no", "not achieved", "not met", "partial", "partially", "false", "none"):
                return False
        return v


class GoalReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    goals: list[GoalVerdict]
    overall_explanation: Explanation = ""
    goal_achieved: bool | None = None

    @field_validator("goals", mode="before")
    @classmethod
    def _goals(cls, v: Any) -> Any:
        if isinstance(v, dict):  # {"find the order": {...}, ...}
            return [{"goal": k, **(x if isinstance(x, dict) else {})} for k, x in v.items()]
        return v


class GoalJudgment(BaseModel):
    """A validated reply: the goals with their cited keys (only keys that exist), the value, notes."""

    model_config = ConfigDict(frozen=True)

    goals: tuple[dict[str, Any], ...]
    overall_explanation: str = ""
    value: float
    notes: tuple[str, ...] = ()


def _short(v: Any, limit: int) -> str:
    text = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def step_line(key: str, c: ToolCall) -> str:
    """``s2. lookup_order({"order_id": "A-1042"}) -> failed: order A-1042 not found``."""
    args = c.raw_arguments if c.raw_arguments is not None else (c.arguments or {})
    head = f"{key}. {c.name}({_short(args, ARGS_CHARS)})"
    if c.failed:
        return f"{head} -> failed: {_short(c.error or c.result or 'the tool failed', RESULT_CHARS)}"
    if c.result is None:
        return f"{head} -> (result not recorded)"
    return f"{head} -> {_short(c.result, RESULT_CHARS)}"


def build_messages(r: CaseResult) -> list[dict[str, str]]:
    """The chat messages of one case (system + user); :func:`keys_of` gives the keys it shows."""
    from ..conversations.prompt import conversation_lines

    case = r.case
    parts: list[str] = [*conversation_lines(case.history), "User request:",
                        case.question.strip() or "(no request given)", ""]
    if case.ground_truth and case.ground_truth.strip():
        parts += ["Reference answer (what a correct end state looks like):", case.ground_truth.strip(), ""]
    parts.append("Agent's steps (tool calls in the order they ran):")
    parts += [step_line(f"s{i}", c) for i, c in enumerate(case.tool_calls, start=1)] or ["(the agent called no tool)"]
    parts += ["", "Agent's final answer:"]
    parts += [f"{s.key}. {s.text}" for s in sentences_of(r).response_sentences] or ["(empty)"]
    parts += ["", INSTRUCTIONS]
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n".join(parts)}]


def keys_of(r: CaseResult) -> tuple[list[str], list[str]]:
    """(the answer's sentence keys, the step keys) the prompt of ``r`` shows."""
    return ([s.key for s in sentences_of(r).response_sentences],
            [f"s{i}" for i in range(1, len(r.case.tool_calls) + 1)])


def _known(keys: Sequence[str], allowed: set[str], what: str, n: int, notes: list[str]) -> list[str]:
    out = [k for k in dict.fromkeys(keys) if k in allowed]
    bad = [k for k in dict.fromkeys(keys) if k not in allowed]
    if bad:
        notes.append(f"goal {n}: dropped unknown {what} keys {', '.join(bad)}")
    return out


def to_judgment(reply: GoalReply, r: CaseResult) -> GoalJudgment:
    """A validated reply (see the module docstring); ValueError (the client re-asks once) when it
    names no goal."""
    goals = [g for g in reply.goals if g.goal.strip() or g.explanation.strip()]
    if not goals:
        raise ValueError('"goals" must list at least one goal of the request, each with "achieved"')
    sentence_keys, step_keys = keys_of(r)
    failed = {f"s{i}" for i, c in enumerate(r.case.tool_calls, start=1) if c.failed}
    notes: list[str] = []
    out = []
    for n, g in enumerate(goals, start=1):
        ans = _known([normalize_key(k) for k in g.answer_sentence_keys], set(sentence_keys), "answer sentence",
                     n, notes)
        steps = _known([normalize_key(k) for k in g.step_keys], set(step_keys), "step", n, notes)
        if g.achieved and not ans and steps and set(steps) <= failed:
            notes.append(f"goal {n} is said achieved though it cites only failed steps and no answer sentence")
        out.append({"goal": g.goal.strip(), "achieved": g.achieved, "explanation": g.explanation,
                    "answer_sentence_keys": ans, "step_keys": steps})
    value = sum(1 for g in out if g["achieved"]) / len(out)
    if reply.goal_achieved is not None and reply.goal_achieved != (value == 1.0):
        notes.append(f"the model's goal_achieved={str(reply.goal_achieved).lower()} contradicts its goal verdicts; "
                     "the goal verdicts were used")
    return GoalJudgment(goals=tuple(out), overall_explanation=reply.overall_explanation, value=value,
                        notes=tuple(notes))


def _skip(reason: str, details: dict[str, Any] | None = None) -> MetricValue:
    return MetricValue(name=GOAL, family=FAMILY, skipped=reason, details=details or {})


def is_agent(r: CaseResult) -> bool:
    return bool(r.case.tool_calls) or r.case.reference_tool_calls is not None


def judge(results: Sequence[CaseResult], opts: EvalOptions
          ) -> tuple[list[MetricValue | None], list[Usage], list[str]]:
    """Per case: its ``goal_accuracy`` (None for a case of no agent) and the LLM usage; the run's
    warnings (see the module docstring)."""
    values: list[MetricValue | None] = [None] * len(results)
    usage = [Usage() for _ in results]
    agents = [i for i, r in enumerate(results) if is_agent(r)]
    if not agents or not opts.goal_accuracy:
        return values, usage, []
    reason = None
    if opts.llm is None:
        reason = OFFLINE
    elif opts.dry_run:
        reason = "dry run: no LLM call made"
    else:
        from ..llm.errors import LLMUnavailable
        from ..llm.keys import check_settings

        try:
            check_settings(opts.llm, "goal accuracy")
        except LLMUnavailable as exc:
            reason = f"LLM unavailable: {exc}"
    if reason is not None:
        for i in agents:
            values[i] = _skip(reason)
        return values, usage, [f"{GOAL}: {reason}"]
    todo = []
    for i in agents:
        if results[i].case.response.strip():
            todo.append(i)
        else:
            values[i] = _skip("the case has no answer to judge")
    from ..llm.errors import StructuredCallError
    from ..llm.shared import get_client

    assert opts.llm is not None  # checked above
    client = get_client(opts.llm)

    def call(r: CaseResult) -> Any:
        async def run() -> Any:
            return await client.structured(build_messages(r), GoalReply, cache_salt=PROMPT_VERSION,
                                           validate=functools.partial(to_judgment, r=r))
        return run

    failed = 0
    for i, res in zip(todo, client.run_all([call(results[i]) for i in todo])):
        if isinstance(res, StructuredCallError):
            values[i], usage[i] = _skip(f"LLM call failed: {res.reason}"), res.usage
            failed += 1
        elif isinstance(res, Exception):
            values[i] = _skip(f"LLM call failed: {type(res).__name__}: {res}")
            failed += 1
        else:
            j = cast(GoalJudgment, res.value)
            notes = [*res.notes, *j.notes]
            values[i] = MetricValue(name=GOAL, family=FAMILY, value=j.value, details={
                "goals": list(j.goals), "overall_explanation": j.overall_explanation, "model": client.describe(),
                "prompt_version": PROMPT_VERSION, **({"llm_notes": notes} if notes else {}),
                "usage": res.usage.model_dump()})
            usage[i] = res.usage
    warnings = [f"{GOAL}: the LLM call failed on {failed} of {len(todo)} case(s) (each names its reason)"] if failed \
        else []
    return values, usage, warnings


def estimate(cases: Sequence[TestCase], opts: EvalOptions) -> dict[str, Any] | None:
    """Dry run: the goal-accuracy calls a run of ``cases`` would make (``{calls, prompt_tokens, …}``,
    or ``{calls: 0, note}`` offline); None when no case is an agent's or it is turned off."""
    agents = [c for c in cases if c.tool_calls or c.reference_tool_calls is not None]
    if not agents or not opts.goal_accuracy:
        return None
    if opts.llm is None:
        return {"calls": 0, "note": OFFLINE}
    from ..llm.estimate import estimate_cost

    prompts = [build_messages(CaseResult(case=c, method="")) for c in agents if c.response.strip()]
    return estimate_cost(["\n".join(m["content"] for m in p) for p in prompts], opts.llm,
                         [120 + 40 * len(c.tool_calls) for c in agents if c.response.strip()])


__all__ = ["GoalJudgment", "GoalReply", "OFFLINE", "PROMPT_VERSION", "build_messages", "estimate", "is_agent", "judge",
           "keys_of", "step_line", "to_judgment"]
