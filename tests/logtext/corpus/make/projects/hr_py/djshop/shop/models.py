from django.db import models


class Product(models.Model):
    name = models.CharField(max_length=120)
    price_cents = models.PositiveIntegerField()
    sku = models.CharField(max_length=32, unique=True, default="")

    def __str__(self):
        return self.name
