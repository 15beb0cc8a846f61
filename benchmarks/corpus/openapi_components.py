"""Hand-written OpenAPI documents' component schemas: `DOCUMENTS` maps a document name to its
``components/schemas`` (refs written ``#/components/schemas/X`` as in OpenAPI).

They use what OpenAPI authors write: `allOf` inheritance, `discriminator`, `nullable` (3.0),
`readOnly`/`writeOnly`, `example`, integer formats (`int32`, `int64`), `format: password`,
`xml` hints, `x-` extensions, and Kubernetes-style `x-kubernetes-*` annotations and int-or-string.
"""

from __future__ import annotations

from typing import Any


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


PETSTORE: dict[str, Any] = {
    "Category": {"type": "object", "properties": {"id": {"type": "integer", "format": "int64", "example": 1},
                 "name": {"type": "string", "example": "Dogs"}}, "xml": {"name": "category"}},
    "Tag": {"type": "object", "properties": {"id": {"type": "integer", "format": "int64"}, "name": {"type": "string"}},
            "xml": {"name": "tag"}},
    "Pet": {
        "required": ["name", "photoUrls"], "type": "object",
        "properties": {
            "id": {"type": "integer", "format": "int64", "example": 10},
            "name": {"type": "string", "example": "doggie"},
            "category": ref("Category"),
            "photoUrls": {"type": "array", "xml": {"wrapped": True}, "items": {"type": "string", "xml": {"name": "photoUrl"}}},
            "tags": {"type": "array", "xml": {"wrapped": True}, "items": ref("Tag")},
            "status": {"type": "string", "description": "pet status in the store", "enum": ["available", "pending", "sold"]},
        },
        "xml": {"name": "pet"},
    },
    "Order": {
        "type": "object",
        "properties": {
            "id": {"type": "integer", "format": "int64", "example": 10},
            "petId": {"type": "integer", "format": "int64", "example": 198772},
            "quantity": {"type": "integer", "format": "int32", "example": 7},
            "shipDate": {"type": "string", "format": "date-time"},
            "status": {"type": "string", "description": "Order Status", "example": "approved",
                       "enum": ["placed", "approved", "delivered"]},
            "complete": {"type": "boolean"},
        },
        "xml": {"name": "order"},
    },
    "User": {
        "type": "object",
        "properties": {
            "id": {"type": "integer", "format": "int64", "example": 10},
            "username": {"type": "string", "example": "theUser"},
            "firstName": {"type": "string", "example": "John"},
            "lastName": {"type": "string", "example": "James"},
            "email": {"type": "string", "example": "john@email.com"},
            "password": {"type": "string", "format": "password", "writeOnly": True},
            "phone": {"type": "string", "example": "12345"},
            "userStatus": {"type": "integer", "description": "User Status", "format": "int32", "example": 1},
        },
        "xml": {"name": "user"},
    },
    "ApiResponse": {"type": "object", "properties": {"code": {"type": "integer", "format": "int32"},
                    "type": {"type": "string"}, "message": {"type": "string"}}, "xml": {"name": "##default"}},
    "NewPet": {"allOf": [ref("Pet"), {"type": "object", "properties": {"ownerEmail": {"type": "string", "format": "email"}}}]},
}

LIBRARY: dict[str, Any] = {
    "Author": {"type": "object", "required": ["id", "name"], "properties": {
        "id": {"type": "string", "format": "uuid", "readOnly": True},
        "name": {"type": "string", "minLength": 1, "maxLength": 200},
        "born": {"type": "string", "format": "date", "nullable": True},
        "nationality": {"type": "string", "pattern": "^[A-Z]{2}$"}}},
    "Book": {"type": "object", "required": ["isbn", "title", "authors"], "properties": {
        "isbn": {"type": "string", "pattern": "^(97[89])?\\d{9}[\\dX]$"},
        "title": {"type": "string", "maxLength": 300},
        "subtitle": {"type": "string", "nullable": True},
        "authors": {"type": "array", "items": ref("Author"), "minItems": 1},
        "published": {"type": "integer", "minimum": 1450, "maximum": 2100},
        "pages": {"type": "integer", "minimum": 1},
        "genres": {"type": "array", "items": {"type": "string", "enum": ["fiction", "non-fiction", "poetry", "drama", "children", "science"]}, "uniqueItems": True},
        "language": {"type": "string", "default": "en"},
        "available": {"type": "boolean", "default": True}},
        "additionalProperties": False},
    "Loan": {"type": "object", "required": ["book", "member", "due"], "properties": {
        "id": {"type": "integer", "format": "int64", "readOnly": True},
        "book": ref("Book"),
        "member": ref("Member"),
        "borrowed": {"type": "string", "format": "date-time", "readOnly": True},
        "due": {"type": "string", "format": "date"},
        "returned": {"type": "string", "format": "date-time", "nullable": True}}},
    "Member": {"type": "object", "required": ["id", "name", "email"], "properties": {
        "id": {"type": "integer", "format": "int32"},
        "name": {"type": "string"},
        "email": {"type": "string", "format": "email"},
        "membership": {"type": "string", "enum": ["standard", "student", "senior"], "default": "standard"},
        "fines": {"type": "number", "format": "double", "minimum": 0}}},
    "LoanList": {"type": "object", "properties": {
        "items": {"type": "array", "items": ref("Loan")},
        "next": {"type": "string", "format": "uri", "nullable": True},
        "count": {"type": "integer", "minimum": 0}}, "required": ["items", "count"]},
    "Problem": {"type": "object", "description": "RFC 7807 problem details", "properties": {
        "type": {"type": "string", "format": "uri-reference", "default": "about:blank"},
        "title": {"type": "string"}, "status": {"type": "integer", "minimum": 100, "maximum": 599},
        "detail": {"type": "string"}, "instance": {"type": "string", "format": "uri-reference"}},
        "additionalProperties": True},
}

PAYMENTS: dict[str, Any] = {
    "Amount": {"type": "object", "required": ["value", "currency"], "properties": {
        "value": {"type": "string", "pattern": "^-?\\d+(\\.\\d{1,2})?$", "example": "12.50"},
        "currency": {"type": "string", "minLength": 3, "maxLength": 3}}},
    "CardPayment": {"type": "object", "required": ["method", "card"], "properties": {
        "method": {"type": "string", "enum": ["card"]},
        "card": {"type": "object", "required": ["number", "expiry"], "properties": {
            "number": {"type": "string", "pattern": "^\\d{12,19}$", "writeOnly": True},
            "expiry": {"type": "string", "pattern": "^(0[1-9]|1[0-2])/\\d{2}$"},
            "cvc": {"type": "string", "pattern": "^\\d{3,4}$", "writeOnly": True},
            "holder": {"type": "string"}}}}},
    "BankTransferPayment": {"type": "object", "required": ["method", "iban"], "properties": {
        "method": {"type": "string", "enum": ["bank_transfer"]},
        "iban": {"type": "string", "pattern": "^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$"},
        "bic": {"type": "string", "pattern": "^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$"}}},
    "WalletPayment": {"type": "object", "required": ["method", "provider"], "properties": {
        "method": {"type": "string", "enum": ["wallet"]},
        "provider": {"type": "string", "enum": ["apple_pay", "google_pay", "paypal", "vipps"]},
        "token": {"type": "string"}}},
    "PaymentMethod": {"oneOf": [ref("CardPayment"), ref("BankTransferPayment"), ref("WalletPayment")],
                      "discriminator": {"propertyName": "method", "mapping": {
                          "card": "#/components/schemas/CardPayment",
                          "bank_transfer": "#/components/schemas/BankTransferPayment",
                          "wallet": "#/components/schemas/WalletPayment"}}},
    "PaymentRequest": {"type": "object", "required": ["amount", "payment_method", "reference"], "properties": {
        "amount": ref("Amount"),
        "payment_method": ref("PaymentMethod"),
        "reference": {"type": "string", "maxLength": 35},
        "description": {"type": "string", "maxLength": 140},
        "capture": {"type": "boolean", "default": True},
        "metadata": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 500}, "maxProperties": 20},
        "x-idempotency": {"type": "string"}}, "x-stability": "stable"},
    "Payment": {"allOf": [ref("PaymentRequest"), {"type": "object", "required": ["id", "status", "created"], "properties": {
        "id": {"type": "string", "readOnly": True, "pattern": "^pay_[A-Za-z0-9]{24}$"},
        "status": {"type": "string", "enum": ["pending", "authorized", "captured", "refunded", "failed"]},
        "created": {"type": "string", "format": "date-time"},
        "failure_reason": {"type": "string", "nullable": True}}}]},
    "Refund": {"type": "object", "required": ["payment_id", "amount"], "properties": {
        "payment_id": {"type": "string"}, "amount": ref("Amount"),
        "reason": {"type": "string", "enum": ["duplicate", "fraudulent", "requested_by_customer"]}}},
    "WebhookEvent": {"type": "object", "required": ["id", "type", "data"], "properties": {
        "id": {"type": "string"}, "type": {"type": "string", "enum": ["payment.captured", "payment.failed", "refund.created"]},
        "created": {"type": "integer", "format": "int64", "description": "Unix time"},
        "data": {"type": "object", "properties": {"object": {"anyOf": [ref("Payment"), ref("Refund")]}}}}},
}

TASKS: dict[str, Any] = {
    "TaskStatus": {"type": "string", "enum": ["todo", "in_progress", "blocked", "done"], "x-enum-varnames": ["TODO", "IN_PROGRESS", "BLOCKED", "DONE"]},
    "Label": {"type": "object", "properties": {"name": {"type": "string", "maxLength": 50},
              "color": {"type": "string", "pattern": "^[0-9a-f]{6}$"}}, "required": ["name"]},
    "Task": {"type": "object", "required": ["id", "title", "status"], "properties": {
        "id": {"type": "integer", "format": "int64", "readOnly": True},
        "title": {"type": "string", "minLength": 1, "maxLength": 255},
        "description": {"type": "string", "nullable": True},
        "status": ref("TaskStatus"),
        "priority": {"type": "integer", "minimum": 1, "maximum": 4, "default": 2},
        "labels": {"type": "array", "items": ref("Label"), "maxItems": 10},
        "assignee": {"type": "string", "nullable": True},
        "due": {"type": "string", "format": "date", "nullable": True},
        "estimate": {"type": "string", "format": "duration"},
        "subtasks": {"type": "array", "items": ref("Task")},
        "created_at": {"type": "string", "format": "date-time", "readOnly": True}}},
    "TaskPatch": {"type": "object", "minProperties": 1, "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": 255},
        "status": ref("TaskStatus"), "priority": {"type": "integer", "minimum": 1, "maximum": 4},
        "assignee": {"type": "string", "nullable": True}}, "additionalProperties": False},
    "Project": {"type": "object", "required": ["id", "name"], "properties": {
        "id": {"type": "string", "format": "uuid"}, "name": {"type": "string"},
        "members": {"type": "array", "items": {"type": "string", "format": "email"}, "uniqueItems": True},
        "tasks": {"type": "array", "items": ref("Task")},
        "archived": {"type": "boolean", "default": False}}},
    "Error": {"type": "object", "required": ["code", "message"], "properties": {
        "code": {"type": "integer", "format": "int32"}, "message": {"type": "string"},
        "errors": {"type": "array", "items": {"type": "object", "properties": {
            "field": {"type": "string"}, "issue": {"type": "string"}}}}}},
}

KUBERNETES_LIKE: dict[str, Any] = {
    "IntOrString": {"description": "An int32 or a string (e.g. a port number or name).", "format": "int-or-string",
                    "oneOf": [{"type": "integer"}, {"type": "string"}]},
    "Quantity": {"description": "A fixed-point quantity such as 500m or 1Gi.", "type": "string",
                 "pattern": "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"},
    "ObjectMeta": {"type": "object", "properties": {
        "name": {"type": "string", "maxLength": 253},
        "namespace": {"type": "string"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
        "uid": {"type": "string"}, "generation": {"type": "integer", "format": "int64"},
        "creationTimestamp": {"type": "string", "format": "date-time"}}},
    "EnvVar": {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string"}, "value": {"type": "string"},
        "valueFrom": {"type": "object", "properties": {
            "configMapKeyRef": {"type": "object", "required": ["key"], "properties": {"key": {"type": "string"}, "name": {"type": "string"}, "optional": {"type": "boolean"}}},
            "secretKeyRef": {"type": "object", "required": ["key"], "properties": {"key": {"type": "string"}, "name": {"type": "string"}, "optional": {"type": "boolean"}}}}}}},
    "ContainerPort": {"type": "object", "required": ["containerPort"], "properties": {
        "containerPort": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 65535},
        "name": {"type": "string"}, "protocol": {"type": "string", "enum": ["TCP", "UDP", "SCTP"], "default": "TCP"}},
        "x-kubernetes-map-type": "atomic"},
    "ResourceRequirements": {"type": "object", "properties": {
        "limits": {"type": "object", "additionalProperties": ref("Quantity")},
        "requests": {"type": "object", "additionalProperties": ref("Quantity")}}},
    "Probe": {"type": "object", "properties": {
        "httpGet": {"type": "object", "required": ["port"], "properties": {"path": {"type": "string"}, "port": ref("IntOrString"), "scheme": {"type": "string", "enum": ["HTTP", "HTTPS"]}}},
        "tcpSocket": {"type": "object", "required": ["port"], "properties": {"port": ref("IntOrString")}},
        "initialDelaySeconds": {"type": "integer", "format": "int32"},
        "periodSeconds": {"type": "integer", "format": "int32"},
        "failureThreshold": {"type": "integer", "format": "int32"}}},
    "Container": {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string"}, "image": {"type": "string"},
        "command": {"type": "array", "items": {"type": "string"}},
        "args": {"type": "array", "items": {"type": "string"}},
        "env": {"type": "array", "items": ref("EnvVar"), "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"},
        "ports": {"type": "array", "items": ref("ContainerPort"), "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["containerPort", "protocol"]},
        "resources": ref("ResourceRequirements"),
        "livenessProbe": ref("Probe"), "readinessProbe": ref("Probe"),
        "imagePullPolicy": {"type": "string", "enum": ["Always", "IfNotPresent", "Never"]}}},
    "PodSpec": {"type": "object", "required": ["containers"], "properties": {
        "containers": {"type": "array", "items": ref("Container")},
        "initContainers": {"type": "array", "items": ref("Container")},
        "restartPolicy": {"type": "string", "enum": ["Always", "OnFailure", "Never"]},
        "nodeSelector": {"type": "object", "additionalProperties": {"type": "string"}, "x-kubernetes-map-type": "atomic"},
        "serviceAccountName": {"type": "string"},
        "terminationGracePeriodSeconds": {"type": "integer", "format": "int64"}}},
    "Deployment": {"type": "object", "x-kubernetes-group-version-kind": [{"group": "apps", "kind": "Deployment", "version": "v1"}],
                   "properties": {
        "apiVersion": {"type": "string", "enum": ["apps/v1"]}, "kind": {"type": "string", "enum": ["Deployment"]},
        "metadata": ref("ObjectMeta"),
        "spec": {"type": "object", "required": ["selector", "template"], "properties": {
            "replicas": {"type": "integer", "format": "int32"},
            "selector": {"type": "object", "properties": {"matchLabels": {"type": "object", "additionalProperties": {"type": "string"}}}},
            "strategy": {"type": "object", "properties": {"type": {"type": "string", "enum": ["Recreate", "RollingUpdate"]},
                         "rollingUpdate": {"type": "object", "properties": {"maxSurge": ref("IntOrString"), "maxUnavailable": ref("IntOrString")}}}},
            "template": {"type": "object", "properties": {"metadata": ref("ObjectMeta"), "spec": ref("PodSpec")}}}}}},
    "Service": {"type": "object", "properties": {
        "apiVersion": {"type": "string", "enum": ["v1"]}, "kind": {"type": "string", "enum": ["Service"]},
        "metadata": ref("ObjectMeta"),
        "spec": {"type": "object", "properties": {
            "type": {"type": "string", "enum": ["ClusterIP", "NodePort", "LoadBalancer", "ExternalName"]},
            "selector": {"type": "object", "additionalProperties": {"type": "string"}},
            "ports": {"type": "array", "items": {"type": "object", "required": ["port"], "properties": {
                "name": {"type": "string"}, "port": {"type": "integer", "format": "int32"},
                "targetPort": ref("IntOrString"), "nodePort": {"type": "integer", "format": "int32"},
                "protocol": {"type": "string", "enum": ["TCP", "UDP", "SCTP"]}}}}}}}},
    "ConfigMap": {"type": "object", "properties": {
        "apiVersion": {"type": "string", "enum": ["v1"]}, "kind": {"type": "string", "enum": ["ConfigMap"]},
        "metadata": ref("ObjectMeta"),
        "data": {"type": "object", "additionalProperties": {"type": "string"}},
        "binaryData": {"type": "object", "additionalProperties": {"type": "string", "format": "byte"}},
        "immutable": {"type": "boolean"}}},
}

DOCUMENTS: dict[str, dict[str, Any]] = {
    "petstore": PETSTORE,
    "library": LIBRARY,
    "payments": PAYMENTS,
    "tasks": TASKS,
    "kubernetes_like": KUBERNETES_LIKE,
}
