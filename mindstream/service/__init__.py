"""The HTTP service: the personal assistant for many users (FastAPI + uvicorn)."""
