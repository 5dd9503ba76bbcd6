<?php

declare(strict_types=1);

require __DIR__ . '/src/Config.php';

$config = new App\Config(['db' => 'sqlite::memory:']);
echo "env: " . $config->env() . PHP_EOL;
$mailer = new App\Mailer($config);
$mailer->send('ops@example.com', 'deploy finished');
