"""What users install: metadata (extras, ranges, Pythons) and the ``rtc`` command without the
compiler's dependencies.

The installed artefact itself (a wheel in a fresh virtual environment, with and without the
compiler extra, at both ends of the declared ranges) is exercised by ``.ci/run``; these tests
check the metadata of whichever rtc is installed and the launcher, in a process where the compiler's
dependencies cannot be imported.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

pytestmark = pytest.mark.core

ROOT = Path(__file__).resolve().parents[1]
COMPILER_DEPENDENCIES = {"black", "click", "jinja2"}


def _requirements(extra: str | None) -> list[Requirement]:
    """The requirements rtc declares, without an extra or for ``extra`` alone."""
    found = []
    for line in metadata.requires("rtc") or []:
        requirement = Requirement(line)
        marker = requirement.marker
        if extra is None and marker is None:
            found.append(requirement)
        elif extra is not None and marker is not None and marker.evaluate({"extra": extra}):
            if not marker.evaluate({"extra": ""}):
                found.append(requirement)
    return found


def test_production_install_is_regex_only() -> None:
    assert [r.name for r in _requirements(None)] == ["regex"]


def test_compiler_extra_brings_the_compiler_dependencies() -> None:
    assert {r.name for r in _requirements("compiler")} == COMPILER_DEPENDENCIES


def _names(extra: str) -> set[str]:
    return {r.name + "".join(f"[{e}]" for e in sorted(r.extras)) for r in _requirements(extra)}


def test_test_extras_include_the_compiler() -> None:
    assert _names("test-core") >= {"rtc[compiler]", "pytest", "pytest-xdist", "transformers"}
    assert "rtc[test-core]" in _names("test")


@pytest.mark.parametrize("extra", [None, "compiler"])
def test_ranges_not_pins(extra: str | None) -> None:
    # Users' environments decide the versions, within a range CI tests at both ends: a lower
    # bound (.ci/ranges.py pins it for the low-end job) and an upper one, never ==.
    for requirement in _requirements(extra):
        operators = {spec.operator for spec in requirement.specifier}
        assert operators == {">=", "<"}, requirement


def test_requires_python_and_classifiers_say_the_same() -> None:
    info = metadata.metadata("rtc")
    prefix = "Programming Language :: Python :: 3."
    classified = {
        int(c.removeprefix(prefix))
        for c in info.get_all("Classifier") or []
        if c.startswith(prefix) and c.removeprefix(prefix).isdigit()
    }
    admitted = {
        minor for minor in range(30) if f"3.{minor}" in SpecifierSet(info["Requires-Python"])
    }
    assert classified == admitted, (classified, info["Requires-Python"])
    assert sys.version_info[1] in classified, "this interpreter is not one rtc declares"


def test_console_script_is_the_launcher() -> None:
    (script,) = [e for e in metadata.entry_points(group="console_scripts") if e.name == "rtc"]
    assert script.value == "rtc.compiler.launcher:main"


def test_readme_test_command_is_what_ci_runs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("exactly what CI runs, `.ci/run`):\n\n```bash\n", 1)[1]
    command = block.split("\n```", 1)[0]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for part in command.split(" && "):
        assert part in ci, f"README's {part!r} is not what .ci/run runs"


# --- without the compiler extra ---------------------------------------------------------------

_WITHOUT = """
import importlib.abc
import sys

MISSING = {missing!r}


class Missing(importlib.abc.MetaPathFinder):
    # What an uninstalled package looks like to an import.
    def find_spec(self, name, path, target=None):
        if name.partition(".")[0] in MISSING:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None


sys.meta_path.insert(0, Missing())
"""


def _run_without(missing: set[str], code: str) -> subprocess.CompletedProcess[str]:
    script = _WITHOUT.format(missing=sorted(missing)) + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)


@pytest.mark.parametrize("missing", sorted(COMPILER_DEPENDENCIES))
def test_rtc_without_the_compiler_extra_says_what_to_install(missing: str) -> None:
    done = _run_without(
        {missing},
        """
        from rtc.compiler.launcher import main
        sys.argv = ["rtc", "compile", "template.json"]
        main()
        """,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr == (
        f"rtc: error: the rtc command needs the compiler extra ({missing} is not installed):"
        " pip install 'rtc[compiler]'\n"
    )


def test_rtc_with_the_compiler_extra_runs_the_command_line() -> None:
    done = _run_without(
        set(),
        """
        from rtc.compiler.launcher import main
        sys.argv = ["rtc", "--version"]
        main()
        """,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("rtc ")


def test_other_missing_modules_stay_loud() -> None:
    # Only the compiler extra's own packages mean "install the extra"; anything else is a bug.
    done = _run_without(
        {"difflib"},
        """
        from rtc.compiler.launcher import main
        sys.argv = ["rtc", "--version"]
        main()
        """,
    )
    assert done.returncode == 1
    assert "Traceback" in done.stderr and "difflib" in done.stderr


def test_rtc_compiler_imports_and_validates_without_the_compiler_extra() -> None:
    done = _run_without(
        COMPILER_DEPENDENCIES,
        """
        import rtc.compiler
        import rtc.compiler.launcher

        template = {"start_anchor": "<s>", "fields": {"content": {"close": "</s>"}}}
        rtc.compiler.validate(template)
        try:
            rtc.compiler.compile_template(template)
        except ModuleNotFoundError as exc:
            print("compile needs", exc.name)
        loaded = sorted(m for m in sys.modules if m.partition(".")[0] in MISSING)
        print("loaded", loaded)
        """,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["compile needs black", "loaded []"]
