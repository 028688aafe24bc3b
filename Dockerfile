FROM python:3.11-slim
WORKDIR /app
# CPU build of torch, pinned: the default index would pull a multi-GB CUDA build.
RUN pip install --no-cache-dir torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu
COPY pyproject.toml README.md ./
COPY loci ./loci
COPY service ./service
COPY domain ./domain
COPY ingest ./ingest
COPY retrieval ./retrieval
COPY bench ./bench
COPY migrations ./migrations
RUN pip install --no-cache-dir .
ENV HF_HUB_OFFLINE=1
EXPOSE 8420
CMD ["loci", "serve", "--host", "0.0.0.0"]
