# Export mlbench data sets as they are to CSV (factors as text, missing = empty cell).
# Usage: Rscript benchmarks/mlbench_csv.R OUT_DIR NAME [NAME ...]
# Used by the performance suite for LetterRecognition, which needs no preparation (the
# missing-value benchmark's mlbench_export.R knows only the sets it prepares). Exits with
# status 3 when mlbench is not installed.
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: mlbench_csv.R OUT_DIR NAME [NAME ...]")
if (!requireNamespace("mlbench", quietly = TRUE)) {
  message("mlbench is not installed")
  quit(status = 3)
}
for (name in args[-1]) {
  env <- new.env()
  data(list = name, package = "mlbench", envir = env)
  d <- get(name, envir = env)
  for (col in names(d)) if (is.factor(d[[col]])) d[[col]] <- as.character(d[[col]])
  write.csv(d, file.path(args[1], paste0(name, ".csv")), row.names = FALSE, na = "")
}
