trimmed_mean <- function(x, trim = 0.1) {
  stopifnot(is.numeric(x), trim >= 0, trim < 0.5)
  x <- sort(x)
  n <- length(x)
  k <- floor(n * trim)
  mean(x[(k + 1):(n - k)])
}

spread <- function(x) {
  if (length(x) < 2) stop("spread needs at least two values, got ", length(x))
  max(x) - min(x)
}
