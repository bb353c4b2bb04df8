"""Where sessions live: the checkpointer and key-value store factory (checkpoints), the Postgres saver that uses
a run's own connection (leased_saver), run locks across processes and replicas (run_locks) and the heartbeat of
running sessions (heartbeat)."""
