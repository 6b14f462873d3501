#!/usr/bin/env python3
"""Validates JSON documents against a JSON Schema (the subset it uses).

Supports what docs/amp-report.schema.json uses: type (one or a list),
properties, required, additionalProperties (a boolean), items, enum,
minimum, maximum and local $ref (#/definitions/...). Prints every
violation with its path and exits 1 if there is one.

usage: validate_schema.py schema.json document.json...
"""
import json
import sys

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "null": lambda v: v is None,
}
KNOWN = {"$schema", "$id", "$ref", "title", "description", "type",
         "properties", "required", "additionalProperties", "items", "enum",
         "minimum", "maximum", "definitions"}


def resolve(root, ref):
    if not ref.startswith("#/"):
        raise ValueError("only local $ref is supported: " + ref)
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def validate(root, schema, value, path, errors):
    unknown = set(schema) - KNOWN
    if unknown:
        raise ValueError("unsupported schema keywords at %s: %s"
                         % (path, sorted(unknown)))
    if "$ref" in schema:
        validate(root, resolve(root, schema["$ref"]), value, path, errors)
        return
    types = schema.get("type")
    if types is not None:
        names = types if isinstance(types, list) else [types]
        if not any(TYPES[name](value) for name in names):
            errors.append("%s: expected %s, got %r" % (path, types, value))
            return
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r is not one of %r" % (path, value, schema["enum"]))
    if "minimum" in schema and TYPES["number"](value) \
            and value < schema["minimum"]:
        errors.append("%s: %r < minimum %r" % (path, value, schema["minimum"]))
    if "maximum" in schema and TYPES["number"](value) \
            and value > schema["maximum"]:
        errors.append("%s: %r > maximum %r" % (path, value, schema["maximum"]))
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in value:
                errors.append("%s: missing required '%s'" % (path, key))
        for key, item in value.items():
            if key in properties:
                validate(root, properties[key], item, path + "." + key, errors)
            elif schema.get("additionalProperties", True) is False:
                errors.append("%s: unexpected property '%s'" % (path, key))
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            validate(root, schema["items"], item, "%s[%d]" % (path, index),
                     errors)


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    failed = False
    for name in sys.argv[2:]:
        with open(name) as f:
            document = json.load(f)
        errors = []
        validate(schema, schema, document, "$", errors)
        for error in errors:
            print("%s: %s" % (name, error))
        if errors:
            failed = True
        else:
            print("%s: valid" % name)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
