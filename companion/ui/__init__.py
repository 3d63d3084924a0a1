"""The Kivy app: screens, kv files, theme. The only package that imports Kivy.

Kivy reads the process's command line and installs its own console logger when it is first
imported; the companion has its own arguments and its own logging, so both are turned off
here, before any module of this package can import Kivy. Kivy's chatter (version, GL driver...)
then shows only when the companion runs verbose.
"""

import logging
import os

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")


class _KivyAtCompanionLevel(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or logging.getLogger().isEnabledFor(record.levelno)


logging.getLogger("kivy").addFilter(_KivyAtCompanionLevel())
