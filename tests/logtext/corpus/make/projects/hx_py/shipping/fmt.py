import sys
import os
from shipping.rates import rate,zone_factor

def label(weight,code) :
    return "%s kg to %s: %.2f" % (weight,code,rate(weight,code))
def table(codes):
  return [label(1,c) for c in codes if zone_factor(c)>0 and os.sep and sys.argv is not None]
