"""The committed catalogue in ``generated/``: no drift, the registry, small diffs, family behaviour.

(a) Every ``generated/NAME.py`` is exactly what ``compile_template(generated/NAME.json)`` writes
    now, and nothing is orphaned. (Where each template comes from, and that official templates stay
    byte-identical to the official copy, is checked with the family's description in
    ``test_catalogue_fixtures.py``.)
(b) The registry ``rtc.generated``: ``names``, ``get``, ``model_types``, ``for_model_type`` (checked
    against each family's ``family.json``), lazy imports, no build-time dependency.
(c) A one-literal change to a template gives a small diff, local to the code naming that delimiter
    (on the sixteen shared templates of ``data/templates``, which stay fixed as test data).
(d) Realistic generations, one shot and streamed like a server streams, must do what transformers
    5.23.0 does with the same chunks: the shared cases (``data/cases``, recorded for the shared
    templates: through the committed module while the catalogue template is still that template,
    else through the shared template compiled here) and this file's own (``data/family_cases``:
    data only, run through the committed modules; the answers come from running the reference here
    on the committed template).
"""

from __future__ import annotations

import difflib
import functools
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from reference import (
    Reference,
    Rtc,
    Step,
    canon,
    diff_steps,
    fixed_chunkings,
    record_oneshot,
    record_stream,
)

import rtc.generated as catalogue
from rtc.compiler import compile_template, load

pytestmark = pytest.mark.core

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "generated"
DATA = Path(__file__).parent / "data"
TEMPLATES = DATA / "templates"
REGENERATE = "run `rtc compile --all generated/`"

NAMES = sorted(p.stem for p in GENERATED.glob("*.json"))
# The sixteen shared templates and their recorded cases: fixed test (and benchmark) data.
SHARED_NAMES = sorted(p.stem for p in TEMPLATES.glob("*.json"))


def _template(name: str) -> Any:
    """The catalogue's template NAME, as committed."""
    return json.loads((GENERATED / f"{name}.json").read_text(encoding="utf-8"))


def _shared_template(name: str) -> Any:
    return json.loads((TEMPLATES / f"{name}.json").read_text(encoding="utf-8"))


@functools.cache
def _compiled(name: str) -> str:
    """What the compiler writes today for ``generated/NAME.json``."""
    return compile_template(GENERATED / f"{name}.json")


# --- (a) the committed files are current ----------------------------------------------------------


def test_shared_templates_are_the_sixteen() -> None:
    assert len(SHARED_NAMES) == 16
    assert set(SHARED_NAMES) <= set(NAMES), "the shared families stay in the catalogue"
    assert (TEMPLATES / "CATALOGUE.md").is_file()


def test_every_template_has_its_pair_and_nothing_is_orphaned() -> None:
    modules = sorted(p.stem for p in GENERATED.glob("*.py") if p.name != "__init__.py")
    assert modules == NAMES, f"generated/*.py without a template, or missing: {REGENERATE}"


@pytest.mark.parametrize("name", NAMES)
def test_generated_module_is_current(name: str) -> None:
    committed = (GENERATED / f"{name}.py").read_bytes()
    expected = _compiled(name).encode("utf-8")
    if committed != expected:
        diff = difflib.unified_diff(
            committed.decode("utf-8", errors="replace").splitlines(),
            expected.decode("utf-8").splitlines(),
            f"generated/{name}.py",
            "compile_template(generated/{name}.json)",
            lineterm="",
        )
        excerpt = "\n".join(list(diff)[:60])
        pytest.fail(f"generated/{name}.py is stale: {REGENERATE}\n{excerpt}")


# --- (b) the registry -----------------------------------------------------------------------------


def _catalogue_table() -> dict[str, list[str]]:
    """NAME -> model types, as each family's ``family.json`` declares them ([]: by name only)."""
    table: dict[str, list[str]] = {}
    for path in sorted((DATA / "catalogue").glob("*/family.json")):
        meta = json.loads(path.read_text(encoding="utf-8"))
        table[path.parent.name] = meta["model_types"]
    return table


def test_names_sorted_and_complete() -> None:
    assert catalogue.names() == NAMES
    listed = catalogue.names()
    listed.clear()  # a copy: callers cannot corrupt the registry
    assert catalogue.names() == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_get_returns_the_committed_module(name: str) -> None:
    module = catalogue.get(name)
    assert module.__name__ == f"rtc.generated.{name}"
    assert module is importlib.import_module(f"rtc.generated.{name}")
    assert module is getattr(catalogue, name)
    # The committed file itself in an editable install, a byte copy of it in a wheel.
    assert Path(module.__file__ or "").read_bytes() == (GENERATED / f"{name}.py").read_bytes()
    assert callable(module.parse_response) and callable(module.ResponseParser)
    assert module.TEMPLATE == _template(name)


@pytest.mark.parametrize("bad", ["nope", "Qwen3", "qwen3.py", "__init__", "os", "", "qwen3 "])
def test_get_unknown_name_lists_the_known_ones(bad: str) -> None:
    with pytest.raises(KeyError) as info:
        catalogue.get(bad)
    message = str(info.value)
    assert repr(bad) in message
    for name in NAMES:
        assert name in message
    with pytest.raises(KeyError):
        catalogue.model_types(bad)


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        catalogue.nope  # noqa: B018
    assert set(NAMES) <= set(dir(catalogue))


def test_model_types_follow_the_catalogue_table() -> None:
    table = _catalogue_table()
    assert sorted(table) == NAMES
    for name in NAMES:
        assert catalogue.model_types(name) == table[name], name


def test_no_model_type_maps_to_two_parsers() -> None:
    seen: dict[str, str] = {}
    for name in NAMES:
        for model_type in catalogue.model_types(name):
            assert model_type not in seen, f"{model_type}: {seen.get(model_type)} and {name}"
            seen[model_type] = name


@pytest.mark.parametrize(
    ("model_type", "name"),
    [(t, n) for n, types in sorted(_catalogue_table().items()) for t in types],
)
def test_for_model_type(model_type: str, name: str) -> None:
    assert catalogue.for_model_type(model_type) is catalogue.get(name)


@pytest.mark.parametrize(
    "model_type",
    ["llama", "mistral", "mistral3", "ministral", "deepseek_v3", "gemma3", "bert", "", "QWEN3"],
)
def test_for_model_type_does_not_guess(model_type: str) -> None:
    assert catalogue.for_model_type(model_type) is None


def test_spot_checks_from_the_issue() -> None:
    expected = {
        "qwen2": "qwen3",
        "qwen2_5_vl": "qwen3",
        "qwen3_vl_moe": "qwen3",
        "qwen3_5_moe_text": "qwen3_5",
        "cohere2": "cohere",
        "ernie4_5_moe": "ernie",
        "granitemoehybrid": "granite4",
        "lfm2": "lfm2_5",
        "nemotron_h": "nemotron3",
        "deepseek_v4": "deepseek_v4",
        "gpt_oss": "gpt_oss",
    }
    for model_type, name in expected.items():
        module = catalogue.for_model_type(model_type)
        assert module is not None and module.__name__ == f"rtc.generated.{name}"
    for name in ("llama3", "mistral", "qwen3_coder", "r1_distill"):
        assert catalogue.model_types(name) == []


_PROBE = """
import json, sys
import rtc.generated as g
g.names(); g.model_types("qwen3"); g.for_model_type("no_such_type")
before = sorted(m for m in sys.modules if m.startswith("rtc"))
from rtc.generated import qwen3
msg = qwen3.parse_response("<think>a</think>b<|im_end|>", prefix="")
after = sorted(m for m in sys.modules if m.startswith("rtc"))
build = sorted(m for m in ("jinja2", "black", "click", "transformers") if m in sys.modules)
print(json.dumps({"before": before, "after": after, "build": build, "msg": msg}))
"""


def test_registry_imports_no_parser_and_no_build_tool() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=60, check=True
    )
    seen = json.loads(done.stdout)
    assert seen["before"] == ["rtc", "rtc.generated"], "importing rtc.generated imported parsers"
    assert "rtc.generated.qwen3" in seen["after"]
    assert not [m for m in seen["after"] if m.startswith("rtc.compiler")]
    assert seen["build"] == [], "production imports reached a build-time or test dependency"
    assert seen["msg"] == {"role": "assistant", "reasoning_content": "a", "content": "b"}


# --- (c) small, local diffs -----------------------------------------------------------------------


def _literal_closes() -> list[Any]:
    params = []
    for name in SHARED_NAMES:
        for field, spec in _shared_template(name)["fields"].items():
            close = spec.get("close")
            if isinstance(close, str):
                params.append(pytest.param(name, field, None, id=f"{name}/{field}"))
            elif isinstance(close, list):
                for k in range(len(close)):
                    params.append(pytest.param(name, field, k, id=f"{name}/{field}[{k}]"))
    return params


def _allowed_lines(lines: list[str], field: str) -> set[int]:
    """Indexes of the lines a change to ``field``'s close literal may touch.

    The header's sha256 line and ``TEMPLATE_SHA256``, the ``TEMPLATE`` literal, and every section
    introduced by a comment naming that delimiter (``# close 'FIELD': ...``): the comment and the
    lines after it, up to a blank line, a line indented less, or the next comment or ``return`` at
    its level.
    """
    allowed = {
        i
        for i, line in enumerate(lines)
        if line.startswith("# Source template sha256") or line.startswith("TEMPLATE_SHA256 =")
    }
    start = next(i for i, line in enumerate(lines) if line.startswith("TEMPLATE:"))
    end = next(i for i in range(start, len(lines)) if lines[i] == "}")
    allowed.update(range(start, end + 1))
    names_it = re.compile(rf"^(\s*)# close {re.escape(repr(field))}[:\s]")
    for i, line in enumerate(lines):
        match = names_it.match(line)
        if not match:
            continue
        indent = len(match.group(1))
        allowed.add(i)
        for j in range(i + 1, len(lines)):
            text = lines[j]
            level = len(text) - len(text.lstrip())
            if not text.strip() or level < indent:
                break
            if level == indent and text.lstrip().startswith(("#", "return")):
                break
            allowed.add(j)
    return allowed


@pytest.mark.parametrize(("name", "field", "index"), _literal_closes())
def test_one_literal_change_gives_a_small_local_diff(
    name: str, field: str, index: int | None
) -> None:
    template = _shared_template(name)
    changed = json.loads(json.dumps(template))
    close = template["fields"][field]["close"]
    old = close if index is None else close[index]
    new = old[:-1] + "X" + old[-1:]
    if index is None:
        changed["fields"][field]["close"] = new
    else:
        changed["fields"][field]["close"][index] = new
    before = compile_template(template).splitlines()
    after = compile_template(changed).splitlines()
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    edits = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    diff = "\n".join(difflib.unified_diff(before, after, "before", "after", n=1, lineterm=""))
    source = "\n".join(after)
    assert new in source or repr(new)[1:-1] in source, f"{new!r} is not in the module"
    removed = sum(i2 - i1 for _, i1, i2, _, _ in edits)
    added = sum(j2 - j1 for _, _, _, j1, j2 in edits)
    # A listed literal sits in its list and in the list's re alternation (NAME_RE).
    assert max(removed, added) <= 14, f"{removed} lines out, {added} in:\n{diff}"
    allowed_before, allowed_after = _allowed_lines(before, field), _allowed_lines(after, field)
    stray = [
        before[i] for _, i1, i2, _, _ in edits for i in range(i1, i2) if i not in allowed_before
    ]
    stray += [
        after[j] for _, _, _, j1, j2 in edits for j in range(j1, j2) if j not in allowed_after
    ]
    assert not stray, f"changes outside the code for close {field!r}: {stray}\n{diff}"


# --- (d) realistic generations, one shot and streamed ---------------------------------------------


@functools.cache
def _reference() -> Reference:
    pytest.importorskip("transformers")
    return Reference()


@functools.cache
def _loaded(template_json: str) -> Any:
    return _reference().load(json.loads(template_json))


def _cases(folder: str) -> list[Any]:
    params = []
    for path in sorted((DATA / folder).glob("*.jsonl")):
        name = path.stem
        for line in path.read_text(encoding="utf-8").splitlines():
            case = json.loads(line)
            params.append(pytest.param(name, case, id=f"{folder}/{name}/{case['name']}"))
    return params


SHARED = _cases("cases")
OWN = _cases("family_cases")


def test_family_cases_are_well_formed() -> None:
    for name in sorted(p.stem for p in (DATA / "family_cases").glob("*.jsonl")):
        assert name in NAMES, f"family_cases/{name}.jsonl: no such catalogue family"
        cases = [json.loads(line) for line in (DATA / "family_cases" / f"{name}.jsonl").open()]
        labels = [case["name"] for case in cases]
        assert len(cases) >= 4 and len(labels) == len(set(labels)), name
        assert any(label.startswith("truncated") for label in labels), name
        assert any(label.startswith("multiturn") for label in labels), name
        for case in cases:
            assert (
                {"name", "prefix", "text"}
                <= set(case)
                <= {"name", "note", "prefix", "text", "tools"}
            )
            assert isinstance(case["prefix"], str) and isinstance(case["text"], str)
            assert case.get("tools") is None or isinstance(case["tools"], list)


def _check(name: str, case: dict[str, Any], template: Any) -> tuple[Step, Step]:
    """Run ``case`` through the reference on ``template`` and through the module for it: the
    committed catalogue module when ``template`` is the catalogue's, else one compiled here."""
    ref = _reference()
    loaded = _loaded(json.dumps(template))
    module: ModuleType = catalogue.get(name) if template == _template(name) else load(template)
    rtc = Rtc(load)  # drives the module it is handed, not a compiled one
    prefix, tools, text = case["prefix"], case.get("tools"), case["text"]
    want = record_oneshot(ref, loaded, text, prefix, tools)
    got = record_oneshot(rtc, module, text, prefix, tools)
    problems = []
    if problem := diff_steps([want], [got]):
        problems.append(f"[one shot]\n{problem}")
    for label, chunks in fixed_chunkings(text, f"{name}/{case['name']}").items():
        want_steps = record_stream(ref, loaded, prefix, tools, chunks)
        got_steps = record_stream(rtc, module, prefix, tools, chunks)
        if problem := diff_steps(want_steps, got_steps):
            problems.append(f"[{label}: {len(chunks)} chunks {chunks[:12]!r}...]\n{problem}")
    assert not problems, "\n\n".join(problems)
    return want, got


@pytest.mark.parametrize(("name", "case"), SHARED)
def test_shared_case(name: str, case: dict[str, Any]) -> None:
    want, got = _check(name, case, _shared_template(name))
    if "expected" in case:  # the recorded answer still holds, for the reference and for rtc
        assert want.result == canon(case["expected"], aliases=False)
        assert canon(got.raw, aliases=False) == canon(case["expected"], aliases=False)
    else:
        assert want.error == got.error == case["error"]


@pytest.mark.parametrize(("name", "case"), OWN)
def test_family_case(name: str, case: dict[str, Any]) -> None:
    _check(name, case, _template(name))
