# Export mlbench data sets with real missing values to CSV (missing = empty cell).
# Usage: Rscript benchmarks/mlbench_export.R OUT_DIR NAME [NAME ...]
# Writes OUT_DIR/NAME.csv for each NAME. Exits with status 3 when mlbench is not installed.
args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2) stop("usage: mlbench_export.R OUT_DIR NAME [NAME ...]")
if (!requireNamespace("mlbench", quietly = TRUE)) {
  message("mlbench is not installed")
  quit(status = 3)
}
out_dir <- args[1]
as_text <- function(d) {
  # Factors (ordered or not) become plain strings, NA stays NA.
  for (col in names(d)) if (is.factor(d[[col]])) d[[col]] <- as.character(d[[col]])
  d
}
prepare <- list(
  HouseVotes84 = function(d) as_text(d),
  Soybean = function(d) as_text(d),
  BreastCancer = function(d) {
    # The nine cytology scores are integers 1..10 in the UCI file (mlbench stores them as
    # factors); Id is a sample code, not an attribute.
    d$Id <- NULL
    for (col in setdiff(names(d), "Class")) d[[col]] <- as.integer(as.character(d[[col]]))
    as_text(d)
  },
  PimaIndiansDiabetes2 = function(d) as_text(d)
)
for (name in args[-1]) {
  if (is.null(prepare[[name]])) stop(paste("unknown data set", name))
  env <- new.env()
  data(list = name, package = "mlbench", envir = env)
  d <- prepare[[name]](get(name, envir = env))
  write.csv(d, file.path(out_dir, paste0(name, ".csv")), row.names = FALSE, na = "")
}
