"""Reading configuration sections key by key, refusing keys nobody reads.

The one reader of the project's configuration files: the table file's sections (game rules,
pay tables, the console, the floor link) and the `[devices.*]` sections (each device kind's
schema stays beside its driver). It imports nothing of the project, so every layer may use
it, and nothing but pure standard-library modules, so the game rules may too.

* `Section`       typed getters (`integer`, `cents`, `flag`, `text`, `choice`, `strings`,
                  `get`, `raw`, nested `section`) and `finish()`, which refuses unknown keys.
* `SettingError`  the default error: `file: [section] key: message`, one line.
* `Phrases`       the wording of the error lines; `TABLE` and `DEVICE` are the two in use.
"""

from confkeys.phrases import DEVICE, TABLE, DevicePhrases, Phrases, format_cents
from confkeys.reader import REQUIRED, ErrorFactory, Required, Section, SettingError, error_line

__all__ = ["DEVICE", "REQUIRED", "TABLE", "DevicePhrases", "ErrorFactory", "Phrases",
           "Required", "Section", "SettingError", "error_line", "format_cents"]
