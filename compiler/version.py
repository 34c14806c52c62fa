"""The rtc version, written into every generated module."""

__version__ = "0.1.0"
