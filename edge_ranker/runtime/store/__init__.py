"""The preference store: a user's reactions and the interests they build, in one SQLite file on the device.

``preferences`` holds the store an app opens, ``space`` one model pair's part of it (the Ranker's), ``events`` how
reactions are checked and replayed into interests, ``rebuild`` how interests are rebuilt from them, ``export`` what
the user gets back, ``sqlite`` what is asked of SQLite (the schema, connections, damage), ``files`` what is done with
the files themselves."""

from edge_ranker.runtime.store.events import check_view_time
from edge_ranker.runtime.store.preferences import MEMORY, PreferenceStore
from edge_ranker.runtime.store.sqlite import SCHEMA_VERSION, CorruptedDatabase, LockedDatabase

__all__ = ["MEMORY", "SCHEMA_VERSION", "CorruptedDatabase", "LockedDatabase", "PreferenceStore", "check_view_time"]
