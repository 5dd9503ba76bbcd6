export function cartTotal(lines) {
  return lines.reduce((sum, line) => sum + line.price * line.qty, 0);
}
