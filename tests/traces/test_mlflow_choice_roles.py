"""An MLflow trace (schema 2, the ``{"spans": [...]}`` its blog prints) of AWS Bedrock Agent wrapped as an MLflow
``ChatModel`` (mlflow/mlflow-website, blog "Using Bedrock Agent as an MLflow ChatModel with Tracing", Nov 2024):
the root CHAT_MODEL span's ``mlflow.spanOutputs`` is a chat completion whose only choice's message says role
``user`` (as the ChatModel built it) and whose ``usage`` counts are null. The first two spans are kept as printed
(the prompt's text after its first line cut). Before, the call's output was None (a choice whose role is not the
assistant's was dropped); the tokens stay unknown. The truth is computed from the raw attributes here."""

from __future__ import annotations

import json

from planviz import load_trace

Q = json.dumps
TRACE_ID = "0x19168085a936546a03d6c85d47fb9ab9"
REQUEST = Q("35b868131a66423783493da51f806370")
SPANS = [
    {"name": "bedrock-agent", "context": {"span_id": "0x84f212578f747953", "trace_id": TRACE_ID}, "parent_id": None,
     "start_time": 1731124123079267000, "end_time": 1731124137612283000, "status_code": "OK", "status_message": "",
     "attributes": {
         "mlflow.traceRequestId": REQUEST, "mlflow.spanType": Q("CHAT_MODEL"), "mlflow.spanFunctionName": Q("predict"),
         "mlflow.spanInputs": Q({"context": "<mlflow.pyfunc.model.PythonModelContext object at 0x12f0c1cd0>",
                                 "messages": [{"role": "user", "content": "what is the next launch window for Mars?",
                                               "name": None}],
                                 "params": {"temperature": 1.0, "max_tokens": None, "stop": None, "n": 1,
                                            "stream": False, "top_p": None, "top_k": None,
                                            "frequency_penalty": None, "presence_penalty": None}}),
         "mlflow.spanOutputs": Q({"choices": [{"index": 0, "message": {
             "role": "user", "content": "The next optimal launch window to Mars is 2026-12-26 UTC.", "name": None},
             "finish_reason": "stop", "logprobs": None}],
             "usage": {"prompt_tokens": None, "completion_tokens": None, "total_tokens": None}, "id": None,
             "model": "anthropic.claude-v2", "object": "chat.completion", "created": 1731124137})},
     "events": []},
    {"name": "Bedrock Input Prompt", "context": {"span_id": "0x0c4f52fb3dbf2cc4", "trace_id": TRACE_ID},
     "parent_id": "0x84f212578f747953", "start_time": 1731124123079823000, "end_time": 1731124123079912000,
     "status_code": "OK", "status_message": "",
     "attributes": {"mlflow.traceRequestId": REQUEST, "mlflow.spanType": Q("UNKNOWN"),
                    "mlflow.spanFunctionName": Q("_get_agent_prompt"),
                    "mlflow.spanInputs": Q({"raw_input_question": "what is the next launch window for Mars?"}),
                    "mlflow.spanOutputs": Q("\n        Answer the following question")},
     "events": []},
]  # fmt: skip


def test_a_chat_completion_choice_is_the_answer_whatever_role_it_names(tmp_path):
    path = tmp_path / "bedrock_chatmodel.mlflow2.json"
    path.write_text(json.dumps({"spans": SPANS}))
    run = load_trace(path)
    attrs = SPANS[0]["attributes"]
    outputs = json.loads(attrs["mlflow.spanOutputs"])
    (call,) = run.model_calls
    assert call.output == outputs["choices"][0]["message"]["content"]
    assert call.model == outputs["model"]
    assert call.input == json.loads(attrs["mlflow.spanInputs"])["messages"][-1]["content"]
    usage = outputs["usage"]
    assert (call.input_tokens, call.output_tokens) == (
        usage["prompt_tokens"],
        usage["completion_tokens"],
    )
    assert call.duration == (SPANS[0]["end_time"] - SPANS[0]["start_time"]) / 1e9
