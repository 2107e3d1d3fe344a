"""The one manifest format every chemground tool has.

A manifest says what a tool does in words a model can act on, what it takes (typed
parameters in call order, with units and examples) and what it returns. The same object
feeds the registry's input validation, the OpenAI ``tools`` schema, the tool retriever's
text and ``chemground tools list``, so the description a model reads is exactly what is
checked and run.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

JSONType = Literal["string", "number", "integer", "boolean", "array", "object"]


class Param(BaseModel):
    """One parameter, in call order."""

    name: str
    type: JSONType
    description: str
    unit: str | None = None
    examples: list[Any] = Field(default_factory=list)
    items: dict[str, Any] | None = None  # JSON schema of array elements
    values: dict[str, Any] | None = None  # JSON schema of object values
    enum: list[Any] | None = None
    minimum: float | None = None
    maximum: float | None = None
    min_items: int | None = None
    max_items: int | None = None
    required: bool = True
    default: Any = None

    def schema(self) -> dict[str, Any]:
        """JSON schema of this parameter (what validation checks and a model is shown)."""
        out: dict[str, Any] = {"type": self.type}
        text = self.description
        if self.unit:
            text += f" Unit: {self.unit}."
        out["description"] = text
        if self.items is not None:
            out["items"] = self.items
        if self.values is not None:
            out["additionalProperties"] = self.values
        for key, value in (
            ("enum", self.enum),
            ("minimum", self.minimum),
            ("maximum", self.maximum),
            ("minItems", self.min_items),
            ("maxItems", self.max_items),
        ):
            if value is not None:
                out[key] = value
        if self.examples:
            out["examples"] = self.examples
        if not self.required:
            out["default"] = self.default
        return out


class Returns(BaseModel):
    type: str
    description: str
    unit: str | None = None


class ToolManifest(BaseModel):
    """What a tool is: name ``<namespace>/<tool>``, description, parameters, return."""

    name: str
    namespace: str
    description: str
    parameters: list[Param]
    returns: Returns
    implementation: str  # "module:function"
    needs_network: bool = (
        False  # its full answer needs an online service; offline it answers what it can
    )
    offline_note: str = ""  # what it does without the network
    uses_files: bool = False  # reads/writes files in the tool files folder
    needs_kb: bool = False  # reads the compound knowledge base
    timeout_s: float = 60.0
    tags: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check_name(self) -> ToolManifest:
        if self.name != f"{self.namespace}/{self.name.split('/', 1)[-1]}" or "/" not in self.name:
            raise ValueError(
                f"tool name {self.name!r} must be '<namespace>/<tool>' with namespace "
                f"{self.namespace!r}"
            )
        names = [p.name for p in self.parameters]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: duplicate parameter names {names}")
        return self

    @property
    def tool(self) -> str:
        return self.name.split("/", 1)[1]

    def json_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": {p.name: p.schema() for p in self.parameters},
            "required": [p.name for p in self.parameters if p.required],
            "additionalProperties": False,
        }

    def openai_tool(self) -> dict[str, Any]:
        """The OpenAI ``tools`` entry (function names may not contain '/', so it becomes '__')."""
        return {
            "type": "function",
            "function": {
                "name": openai_name(self.name),
                "description": self.full_description(),
                "parameters": self.json_schema(),
            },
        }

    def full_description(self) -> str:
        text = self.description.strip()
        text += f" Returns {self.returns.type}: {self.returns.description}"
        if self.returns.unit:
            text += f" (unit: {self.returns.unit})"
        if self.needs_network and self.offline_note:
            text += f" Offline: {self.offline_note}"
        return text

    def signature(self) -> str:
        """``name(param: type [unit], ...) -> type`` for prompts and listings."""
        parts = []
        for p in self.parameters:
            label = f"{p.name}: {p.type}"
            if p.unit:
                label += f" [{p.unit}]"
            if not p.required:
                label += f" = {p.default!r}"
            parts.append(label)
        return f"{self.name}({', '.join(parts)}) -> {self.returns.type}"

    def retrieval_text(self) -> str:
        """What the tool retriever indexes: name words, description, parameters and return."""
        words = self.tool.replace("_", " ")
        params = "; ".join(f"{p.name.replace('_', ' ')}: {p.description}" for p in self.parameters)
        return (
            f"{words}. {self.namespace.replace('_', ' ')}. {self.description} "
            f"Parameters: {params}. Returns: {self.returns.description}"
        )

    def to_json(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", exclude={"implementation"})
        data["signature"] = self.signature()
        return data


def openai_name(name: str) -> str:
    return name.replace("/", "__")


def from_openai_name(name: str) -> str:
    return name.replace("__", "/", 1) if "/" not in name else name
