<?php

declare(strict_types=1);

namespace App;

final class Config
{
    public function __construct(private array $values)
    {
    }

    public function env(): string
    {
        return $this->values['env'] ?? 'production';
    }
}
