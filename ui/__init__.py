"""Streamlit front end helpers: shared page plumbing (`shared`), plain-data views (`frames`), figures (`charts`)."""
