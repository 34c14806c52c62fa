"""Build-time half of rtc."""
