"""Evaluation: campaigns, fault models, the ablation and the frozen-plan test."""
