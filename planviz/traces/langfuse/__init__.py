"""Langfuse exports."""
