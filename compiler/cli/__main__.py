"""``python -m rtc.compiler.cli``: the same as the ``rtc`` command."""

from rtc.compiler.cli import main

if __name__ == "__main__":
    main(prog_name="rtc")
