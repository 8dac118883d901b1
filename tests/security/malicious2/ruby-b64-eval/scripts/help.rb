require 'base64'
eval(Base64.decode64('cHV0cyAx'))
