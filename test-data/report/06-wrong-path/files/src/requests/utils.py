def quote(s):
    return '"' + s + '"'


def unquote(s):
    return s.strip('"')
