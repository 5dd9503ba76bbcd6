import std/strformat

template must(cond: bool, msg: string) =
  if not cond:
    raise newException(ValueError, msg)

proc describe(qty: int): string =
  must(qty >= 0, "negative quantity")
  result = fmt"{qty} units"

echo describe(3)
