#!/usr/bin/env bash
# Install the project's requirements and start the workbench on http://localhost:8501.
# The sample corpus is ingested on first start. Usage: bash scripts/run.sh [streamlit args]
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install -q -r requirements.txt
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec python -m streamlit run app.py "$@"
