export const VERSION = '4.0.0';
