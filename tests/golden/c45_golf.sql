CASE
  WHEN (((((CASE WHEN "outlook" IS NULL THEN 0.35714285714285715 WHEN "outlook" = 'sunny' THEN 1.0 ELSE 0.0 END) * (CASE WHEN "humidity" IS NULL THEN 0.4 WHEN "humidity" <= 77.5 THEN 1.0 ELSE 0.0 END)
 + (CASE WHEN "outlook" IS NULL THEN 0.2857142857142857 WHEN "outlook" = 'overcast' THEN 1.0 ELSE 0.0 END))
 + ((CASE WHEN "outlook" IS NULL THEN 0.35714285714285715 WHEN "outlook" = 'rain' THEN 1.0 ELSE 0.0 END) * (CASE WHEN "windy" IS NULL THEN 0.6 WHEN "windy" = FALSE THEN 1.0 ELSE 0.0 END)
 + (CASE WHEN "outlook" IS NULL THEN 0.35714285714285715 WHEN "outlook" = 'rain' THEN 1.0 ELSE 0.0 END) * (CASE WHEN "windy" IS NULL OR "windy" = FALSE OR "windy" = TRUE THEN 0.0 ELSE 1.0 END) * 0.6))
 + (CASE WHEN "outlook" IS NULL OR "outlook" = 'sunny' OR "outlook" = 'overcast' OR "outlook" = 'rain' THEN 0.0 ELSE 1.0 END) * 0.6428571428571429)) >= ((((CASE WHEN "outlook" IS NULL THEN 0.35714285714285715 WHEN "outlook" = 'sunny' THEN 1.0 ELSE 0.0 END) * (CASE WHEN "humidity" IS NULL THEN 0.6 WHEN "humidity" > 77.5 THEN 1.0 ELSE 0.0 END)
 + (CASE WHEN "outlook" IS NULL THEN 0.35714285714285715 WHEN "outlook" = 'rain' THEN 1.0 ELSE 0.0 END) * (CASE WHEN "windy" IS NULL THEN 0.4 WHEN "windy" = TRUE THEN 1.0 ELSE 0.0 END))
 + ((CASE WHEN "outlook" IS NULL THEN 0.35714285714285715 WHEN "outlook" = 'rain' THEN 1.0 ELSE 0.0 END) * (CASE WHEN "windy" IS NULL OR "windy" = FALSE OR "windy" = TRUE THEN 0.0 ELSE 1.0 END) * 0.4
 + (CASE WHEN "outlook" IS NULL OR "outlook" = 'sunny' OR "outlook" = 'overcast' OR "outlook" = 'rain' THEN 0.0 ELSE 1.0 END) * 0.35714285714285715))) - 1e-12 THEN 'yes'
  ELSE 'no'
END
