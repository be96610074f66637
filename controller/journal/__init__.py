"""The hash-chained audit journal and critical state, its verification, the state directory."""
