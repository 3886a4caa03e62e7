CASE
  WHEN ("纹理" = '清晰' OR ("纹理" IS NULL AND ("脐部" = '凹陷' OR ("脐部" IS NULL AND ("色泽" <> '浅白' OR ("色泽" IS NULL AND "根蒂" = '蜷缩')))))) AND ("根蒂" = '蜷缩' OR ("根蒂" IS NULL AND ("触感" = '硬滑' OR "触感" IS NULL))) THEN '是'
  WHEN ("纹理" = '清晰' OR ("纹理" IS NULL AND ("脐部" = '凹陷' OR ("脐部" IS NULL AND ("色泽" <> '浅白' OR ("色泽" IS NULL AND "根蒂" = '蜷缩')))))) AND "色泽" = '乌黑' THEN '否'
  WHEN ("纹理" = '清晰' OR ("纹理" IS NULL AND ("脐部" = '凹陷' OR ("脐部" IS NULL AND ("色泽" <> '浅白' OR ("色泽" IS NULL AND "根蒂" = '蜷缩')))))) THEN '是'
  WHEN ("色泽" = '乌黑' OR ("色泽" IS NULL AND "脐部" = '稍凹')) AND ("敲声" = '浊响' OR "敲声" IS NULL) THEN '是'
  WHEN ("色泽" = '乌黑' OR ("色泽" IS NULL AND "脐部" = '稍凹')) THEN '否'
  ELSE '否'
END
