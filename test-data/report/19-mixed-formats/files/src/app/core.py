def greet(name):
    return "hi " + name


def main():
    print(greet("x"))
