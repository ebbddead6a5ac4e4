import json


DEFAULTS = {
    "host": "localhost",
    "port": 8080,
    "debug": False,
}


def load(path):
    with open(path) as f:
        data = json.load(f)
    merged = dict(DEFAULTS)
    merged.update(data)
    return merged
