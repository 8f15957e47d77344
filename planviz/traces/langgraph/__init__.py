"""LangGraph: checkpoint histories and SqliteSaver databases."""
