"""Contract files: ``parse_contract`` reads text, ``load_contract`` paths, open files, mappings and plans.

A contract is what the goal demands, whatever the route (:class:`~planviz.Contract`). Its file holds the
contract's fields, a ``contract:`` mapping, or a whole plan file whose ``contract`` is read; the same
untrusted-input rules as plan files apply (:mod:`planviz.plan.files`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import IO, Any, Mapping

from planviz.errors import PlanFormatError
from planviz.io.text import STRING_NAME
from planviz.plan.document import Document, parse_document
from planviz.plan.files import source_text, text_argument
from planviz.plan.model import Contract, Plan
from planviz.plan.records import contract_from_dict

__all__ = ["parse_contract", "load_contract"]


def parse_contract(text: str | bytes, source: str = STRING_NAME) -> Contract:
    """Read a contract from text: a file of contract fields, a ``contract:`` mapping, or a plan file's contract.

    Parameters
    ----------
    text : str or bytes
        The contract's text: its fields, a ``contract:`` mapping or a plan file with one.
    source : str, optional
        How messages name the text.

    Returns
    -------
    Contract
        The contract.

    Raises
    ------
    PlanFormatError
        When the text holds no contract or a field is wrong.
    PlanvizTypeError
        When ``text`` is not str or bytes.

    Examples
    --------
    >>> parse_contract("required: [verify]\\nintent: read\\n").intent
    'read'
    >>> parse_contract("contract: {forbidden: [delete_tests]}").forbidden
    ('delete_tests',)
    """
    return _contract(parse_document(text_argument("parse_contract", text, source), source))


def load_contract(
    source: str | os.PathLike[str] | IO[bytes] | IO[str] | Mapping[str, object] | Contract | Plan,
) -> Contract:
    """Load a contract from a path, an open file, a mapping of its fields, a :class:`Contract` or a plan's own.

    Parameters
    ----------
    source : path, open file, mapping, Contract or Plan
        Where the contract is (a plan gives its own).

    Returns
    -------
    Contract
        The contract.

    Raises
    ------
    PlanFormatError
        When the file cannot be read, holds no contract, or a plan has none.
    PlanvizTypeError
        When ``source`` is none of the accepted kinds.

    Examples
    --------
    >>> load_contract({"required": ["verify"]}).required
    ('verify',)
    """
    if isinstance(source, Contract):
        return source
    if isinstance(source, Plan):
        if source.contract is None:
            raise PlanFormatError(
                "this plan has no contract: expected a contract mapping", source=STRING_NAME
            )
        return source.contract
    if isinstance(source, Mapping):
        return _contract_data(source, None, STRING_NAME)
    text, name = source_text("load_contract", source)
    return _contract(parse_document(text, name))


def _contract(doc: Document) -> Contract:
    if doc.multi:
        raise PlanFormatError(
            f"holds {len(doc.values)} documents, expected one contract", source=doc.name
        )
    return _contract_data(doc.data, doc, doc.name)


def _contract_data(data: Any, doc: Document | None, name: str) -> Contract:
    try:
        if not isinstance(data, Mapping):
            return contract_from_dict(data)
        if "steps" in data or (set(data) - {"contract", "$schema"} and "contract" in data):
            if data.get("contract") is None:
                raise PlanFormatError(
                    "this plan file has no 'contract' mapping: expected the contract's fields"
                )
            return contract_from_dict(data["contract"], _prefix=("contract",))
        if "contract" in data:
            return contract_from_dict(data["contract"], _prefix=("contract",))
        return contract_from_dict({k: v for k, v in data.items() if k != "$schema"})
    except PlanFormatError as exc:
        raise (doc.error(exc) if doc is not None else exc.located(source=name)) from None
