"""`python -m core`: argument parsing and dispatch (dispatch), the corpus commands (corpus), the loop commands
(loop), `eval` (eval) and the one error type they share (errors)."""
