from slug import slugify


def test_simple():
    assert slugify("Hello World") == "hello-world"


def test_trailing_punctuation():
    assert slugify("Hello, World!") == "hello-world"


def test_unicode():
    assert slugify("Crème brûlée") == "creme-brulee"
