"""Langfuse exports.
"""
