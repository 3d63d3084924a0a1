"""The Kivy app: screens, kv files, theme. The only package that imports Kivy.

Kivy reads the process's command line and installs its own console logger when it is first
imported; the companion has its own arguments and its own logging, so both are turned off
here, before any module of this package can import Kivy. Kivy's chatter (version, GL driver,
"Config: Older configuration version detected" on a first start...) is English and for a
developer: it shows only when the companion runs verbose. A critical one (no window can be
opened) still shows, as the last word before the program gives up.
"""

import logging
import os

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")

# Kivy's rules and ours, kept parsed between starts (kv_kept.py): before Kivy's Builder loads.
from companion.ui import kv_kept  # noqa: E402 - after the environment Kivy reads at its import

kv_kept.install()


class _KivyOnlyWhenVerbose(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        # Kivy's warnings and errors include harmless ones (an optional provider that failed while
        # another works): the user's terminal shows only the companion's own sentences.
        return record.levelno >= logging.CRITICAL or logging.getLogger().isEnabledFor(logging.DEBUG)


logging.getLogger("kivy").addFilter(_KivyOnlyWhenVerbose())
