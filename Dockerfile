# The Refit service image: `docker compose up` builds it (see README, "Docker").
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY domain ./domain
COPY projections ./projections
COPY api ./api
COPY infra ./infra
RUN pip install --no-cache-dir .
ENV REFIT_DATABASE_URL=sqlite:////data/refit.db \
    REFIT_MODULE_DIR=/data/modules
VOLUME /data
EXPOSE 8000
CMD ["refit", "serve", "--host", "0.0.0.0", "--port", "8000"]
