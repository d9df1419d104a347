"""The preference store: a user's reactions and the interests they build, in one SQLite file on the device.

``preferences`` holds the store, ``events`` how reactions are checked and replayed into interests, ``sqlite`` what is
asked of SQLite (the schema, connections, damage), ``files`` what is done with the files themselves."""

from edge_ranker.runtime.store.events import check_view_time
from edge_ranker.runtime.store.preferences import MEMORY, PreferenceStore
from edge_ranker.runtime.store.sqlite import SCHEMA_VERSION, CorruptedDatabase, LockedDatabase

__all__ = ["MEMORY", "SCHEMA_VERSION", "CorruptedDatabase", "LockedDatabase", "PreferenceStore", "check_view_time"]
