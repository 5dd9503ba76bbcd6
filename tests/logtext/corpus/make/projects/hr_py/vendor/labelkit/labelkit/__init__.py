def label(country, zip_code): return f"{country}-{zip_code}"
