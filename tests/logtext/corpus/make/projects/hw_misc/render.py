"""Render the changelog the release notes are checked against."""
entries = [("2.5.0", "new billing export"), ("2.4.1", "fix VAT rounding")]
for version, text in entries:
    print(f"## {version}\n- {text.capitalize()}")
