"""``python -m rtc.compiler.cli``: the same as the ``rtc`` command."""

from rtc.compiler.cli import run

if __name__ == "__main__":
    run()
