"""OpenTelemetry spans: OTel GenAI, OpenInference, OTel JS, Phoenix and MLflow."""
