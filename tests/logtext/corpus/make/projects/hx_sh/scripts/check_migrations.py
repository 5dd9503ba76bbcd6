"""Compare the migrations in the repository with the ones the schema dump says are applied."""
import sys

applied = ["0040_orders", "0041_refunds"]
present = ["0040_orders", "0041_refunds", "0042_refund_index", "0043_drop_legacy"]
print(f"{len(present)} migrations in repository, {len(applied)} applied in schema.sql")
missing = [name for name in present if name not in applied]
for name in missing:
    print(f"  not applied: {name}")
if missing:
    print(f"schema.sql is out of date: run 'make schema' and commit the result ({len(missing)} pending)")
    sys.exit(2)
