"""The production install, checked where users have it: a fresh environment holding the wheel alone.

    python -I .ci/wheel_check.py tests/data

Run by .ci/run with ``-I``, so that only that environment is importable (not the repository, not
the working directory). Checks that the environment holds rtc and regex and nothing else besides
pip's own tools, that rtc comes from that environment's site-packages, and that every catalogue
parser imports without ``rtc.compiler`` and parses generations: the cases of
``DATA/cases/NAME.jsonl`` where they were recorded for the parser's template, answered as recorded
there (the answers of transformers 5.23.0), one shot and streamed in 7-character chunks where the
case says the streamed answer is the same; otherwise the model outputs of
``DATA/catalogue/NAME/fixtures.jsonl``, each of which must parse into an assistant message, one
shot and streamed, unless the family's ``known_gaps.json`` names it (a known gap may raise; what
the fixtures mean is checked by the test suite, which runs on this wheel too).
"""

from __future__ import annotations

import json
import sys
import sysconfig
from importlib import metadata
from pathlib import Path
from typing import Any

PRODUCTION = {"rtc", "regex"}
"""What ``pip install rtc`` may bring."""
ENVIRONMENT_TOOLS = {"pip", "setuptools"}
"""What a new virtual environment holds before anything is installed (setuptools up to 3.11)."""


def fail(message: str) -> None:
    raise SystemExit(f"wheel check: {message}")


def check_environment() -> None:
    installed = {d.metadata["Name"].lower() for d in metadata.distributions()}
    if installed - ENVIRONMENT_TOOLS != PRODUCTION:
        fail(f"the production install holds {sorted(installed)}, expected {sorted(PRODUCTION)}")
    import rtc.runtime

    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    where = Path(rtc.runtime.__file__).resolve()
    if site not in where.parents:
        fail(f"rtc.runtime comes from {where}, not from this environment's {site}")


def message_json(message: Any) -> str:
    """A message as JSON text: key order and the types JSON tells apart (1, 1.0, true) kept."""
    return json.dumps(message, ensure_ascii=False)


def streamed(parser: Any, case: dict[str, Any]) -> Any:
    stream = parser.ResponseParser(case["prefix"], tools=case.get("tools"))
    text = case["text"]
    for at in range(0, len(text), 7):
        stream.feed(text[at : at + 7])
    message, _events = stream.finalize()
    return message


def generations(data: Path, name: str, parser: Any) -> list[dict[str, Any]]:
    """The recorded cases while the parser's template is still the one they were recorded for,
    else the family's fixtures (parsed after the family's prompt)."""
    cases = data / "cases" / f"{name}.jsonl"
    recorded_for = data / "templates" / f"{name}.json"
    if cases.is_file() and json.loads(recorded_for.read_text(encoding="utf-8")) == parser.TEMPLATE:
        return [json.loads(line) for line in cases.read_text(encoding="utf-8").splitlines()]
    family = data / "catalogue" / name
    prompt = json.loads((family / "family.json").read_text(encoding="utf-8"))["prompt"]
    fixtures = (family / "fixtures.jsonl").read_text(encoding="utf-8").splitlines()
    gaps_file = family / "known_gaps.json"
    gaps = json.loads(gaps_file.read_text(encoding="utf-8")) if gaps_file.is_file() else {}
    return [
        {
            "name": f["id"],
            "prefix": f.get("prefix", prompt),
            "text": f["text"],
            "tools": f.get("tools"),
            "known_gap": f["id"] in gaps,
        }
        for f in map(json.loads, fixtures)
    ]


def is_message(value: Any) -> bool:
    return isinstance(value, dict) and value.get("role") == "assistant"


def check_parser(name: str, parser: Any, data: Path) -> int:
    cases = generations(data, name, parser)
    for case in cases:
        where = f"{name}/{case['name']}"
        if "expected" not in case and "error" not in case:  # a fixture: it must parse
            try:
                got = parser.parse_response(
                    case["text"], prefix=case["prefix"], tools=case["tools"]
                )
                ok = is_message(got) and is_message(streamed(parser, case))
            except ValueError as exc:
                if not case["known_gap"]:
                    fail(f"{where}: raises ValueError: {exc}")
                continue
            if not ok:
                fail(f"{where}: not an assistant message: {got!r}")
            continue
        try:
            got = parser.parse_response(
                case["text"], prefix=case["prefix"], tools=case.get("tools")
            )
        except Exception as exc:  # noqa: BLE001 - the exception type is the recorded answer
            if type(exc).__name__ != case.get("error"):
                fail(f"{where}: raises {type(exc).__name__}: {exc}; expected {case.get('error')}")
            continue
        if "expected" not in case:
            fail(f"{where}: returns {got!r}; expected {case['error']}")
        if message_json(got) != message_json(case["expected"]):
            fail(f"{where}: {message_json(got)}\n  expected {message_json(case['expected'])}")
        if case.get("stream_check") == "same":
            if message_json(streamed(parser, case)) != message_json(case["expected"]):
                fail(f"{where}: streamed answer differs from {message_json(case['expected'])}")
    return len(cases)


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        raise SystemExit(__doc__)
    check_environment()
    from rtc import generated

    total = 0
    for name in generated.names():
        total += check_parser(name, generated.get(name), Path(argv[0]))
    if "rtc.compiler" in sys.modules:
        fail("importing the catalogue imported rtc.compiler")
    print(f"wheel check: {len(generated.names())} parsers, {total} generations, runtime only: ok")


if __name__ == "__main__":
    main(sys.argv[1:])
